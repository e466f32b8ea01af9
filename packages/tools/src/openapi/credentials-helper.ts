import { ConfigurationError } from "@agentkit/core";
import {
  MAX_OAUTH2_RESPONSE_BYTES,
  oauth2TimeoutMs,
  readBodyLimited,
  requestDeadline,
  safeUrl,
} from "@agentkit/core/internal";
import type { JWT } from "google-auth-library";
import { z } from "zod";
import { CredentialsError } from "./openapi-error.js";

/** Google's OAuth token endpoint, where service-account JWT assertions are exchanged. */
export const GOOGLE_TOKEN_URL = "https://oauth2.googleapis.com/token";
export const CLOUD_PLATFORM_SCOPE = "https://www.googleapis.com/auth/cloud-platform";

/** Statuses whose `Response` must be made without a body. */
const NULL_BODY_STATUSES = new Set([204, 205, 304]);

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
  /**
   * Bound on each token request, its body read included (default 30 000 ms). Such a failure, or
   * an answer over 1 MiB, is not retried by google-auth-library (other failures are, as it does).
   */
  timeoutMs?: number;
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
  readonly timeoutMs: number;
  private client?: Promise<JWT>;

  private constructor(credentials: ServiceAccountCredentials, options: CredentialsHelperOptions) {
    this.credentials = credentials;
    this.scopes = options.scopes ?? [CLOUD_PLATFORM_SCOPE];
    this.tokenUrl = options.tokenUrl ?? GOOGLE_TOKEN_URL;
    this.timeoutMs = oauth2TimeoutMs(options.timeoutMs);
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
    return new JWT({
      email: this.credentials.client_email,
      key: this.credentials.private_key,
      ...(this.credentials.private_key_id ? { keyId: this.credentials.private_key_id } : {}),
      scopes: this.scopes,
      transporterOptions: { fetchImplementation: (input, init) => this.boundedFetch(input, init) },
    });
  }

  /**
   * The JWT client's fetch: Google's token endpoint redirected to `tokenUrl`, and each request
   * bounded in time and size, so an endpoint that stops answering cannot hold a tool call.
   */
  private async boundedFetch(input: Parameters<typeof fetch>[0], init?: RequestInit): Promise<Response> {
    const url = input instanceof Request ? input.url : String(input);
    const target = url === GOOGLE_TOKEN_URL ? this.tokenUrl : input;
    const timeoutMs = this.timeoutMs;
    const deadline = requestDeadline(init?.signal ?? undefined, timeoutMs);
    try {
      const response = await fetch(target, { ...init, signal: deadline.signal });
      const text = await readBodyLimited(response, { maxBytes: MAX_OAUTH2_RESPONSE_BYTES, signal: deadline.signal });
      const { status, statusText, headers } = response;
      return new Response(NULL_BODY_STATUSES.has(status) ? null : text, { status, statusText, headers });
    } catch (error) {
      const where = safeUrl(target instanceof Request ? target.url : String(target));
      const failure = deadline.failure(error);
      if (failure === "timeout")
        throw new TokenRequestStopped(`The token request to ${where} timed out after ${timeoutMs} ms.`, error);
      if (failure === "too large")
        throw new TokenRequestStopped(
          `The token endpoint ${where} answered more than ${MAX_OAUTH2_RESPONSE_BYTES} bytes.`,
          error,
        );
      throw error;
    } finally {
      deadline.done();
    }
  }
}

/**
 * A token request we stopped (deadline, size limit). Its `code` is what gaxios gives an aborted
 * request, which it does not retry: the endpoint had its time, and a retry would get the same.
 */
class TokenRequestStopped extends Error {
  readonly code = "AbortError";

  constructor(message: string, cause: unknown) {
    super(message, { cause });
    this.name = "TokenRequestStopped";
  }
}
