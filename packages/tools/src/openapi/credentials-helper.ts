import { ConfigurationError } from "@agentkit/core";
import type { JWT } from "google-auth-library";
import { z } from "zod";
import { CredentialsError } from "./openapi-error.js";

/** Google's OAuth token endpoint, where service-account JWT assertions are exchanged. */
export const GOOGLE_TOKEN_URL = "https://oauth2.googleapis.com/token";
export const CLOUD_PLATFORM_SCOPE = "https://www.googleapis.com/auth/cloud-platform";

const serviceAccountSchema = z.looseObject({
  type: z.literal("service_account"),
  client_email: z.email(),
  private_key: z.string().includes("PRIVATE KEY"),
  private_key_id: z.string().optional(),
  project_id: z.string().optional(),
  token_uri: z.string().optional(),
});

/** The fields of a service-account key file agentkit uses. */
export type ServiceAccountCredentials = z.infer<typeof serviceAccountSchema>;

export interface CredentialsHelperOptions {
  scopes?: string[];
  /** Token endpoint to post the signed assertion to (default Google's; tests point it at a local server). */
  tokenUrl?: string;
}

/**
 * Turns a service-account JSON string into credentials and access tokens (through
 * google-auth-library's JWT client, which signs the RS256 assertion and caches the token until
 * shortly before it expires).
 */
export class CredentialsHelper {
  readonly credentials: ServiceAccountCredentials;
  readonly scopes: string[];
  readonly tokenUrl: string;
  private client?: Promise<JWT>;

  private constructor(credentials: ServiceAccountCredentials, options: CredentialsHelperOptions) {
    this.credentials = credentials;
    this.scopes = options.scopes ?? [CLOUD_PLATFORM_SCOPE];
    this.tokenUrl = options.tokenUrl ?? GOOGLE_TOKEN_URL;
  }

  /** Parses and checks a service-account key (JSON text); throws `ConfigurationError` when it is not one. */
  static fromServiceAccountJson(json: string, options: CredentialsHelperOptions = {}): CredentialsHelper {
    let raw: unknown;
    try {
      raw = JSON.parse(json);
    } catch (error) {
      throw new ConfigurationError(
        "serviceAccountJson is not valid JSON: pass the content of the service-account key file.",
        { cause: error },
      );
    }
    const parsed = serviceAccountSchema.safeParse(raw);
    if (!parsed.success) {
      const detail = parsed.error.issues.map((i) => `${i.path.join(".") || "key"}: ${i.message}`).join("; ");
      throw new ConfigurationError(`serviceAccountJson is not a service-account key (${detail}).`);
    }
    return new CredentialsHelper(parsed.data, options);
  }

  /** The google-auth-library JWT client for these credentials (created on first use). */
  async getClient(): Promise<JWT> {
    this.client ??= this.createClient();
    return this.client;
  }

  /** A current access token; throws `CredentialsError` when the token endpoint refuses the assertion. */
  async getAccessToken(): Promise<string> {
    const client = await this.getClient();
    let token: string | null | undefined;
    try {
      token = (await client.getAccessToken()).token;
    } catch (error) {
      throw new CredentialsError(
        `Could not get an access token for ${this.credentials.client_email}: ${(error as Error).message}`,
        { cause: error },
      );
    }
    if (!token)
      throw new CredentialsError(`The token endpoint returned no access token for ${this.credentials.client_email}.`);
    return token;
  }

  private async createClient(): Promise<JWT> {
    // Loaded on first use: google-auth-library is an optional peer dependency.
    const { JWT } = await import("google-auth-library");
    const tokenUrl = this.tokenUrl;
    // The JWT client always posts to Google's endpoint; redirect that one URL when configured.
    const fetchImplementation = (input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]) => {
      const url = input instanceof Request ? input.url : String(input);
      return fetch(url === GOOGLE_TOKEN_URL ? tokenUrl : input, init);
    };
    return new JWT({
      email: this.credentials.client_email,
      key: this.credentials.private_key,
      ...(this.credentials.private_key_id ? { keyId: this.credentials.private_key_id } : {}),
      scopes: this.scopes,
      ...(tokenUrl !== GOOGLE_TOKEN_URL ? { transporterOptions: { fetchImplementation } } : {}),
    });
  }
}
