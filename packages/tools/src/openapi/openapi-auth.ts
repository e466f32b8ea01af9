import { z } from "zod";

const tokenSource = z.union([z.string().min(1), z.custom<() => Promise<string>>((v) => typeof v === "function")]);

/**
 * How requests authenticate: an API key (header, query or cookie), a bearer token (or a token provider), or basic auth.
 */
export const openApiAuthSchema = z.discriminatedUnion("type", [
  z
    .object({
      type: z.literal("apiKey"),
      name: z.string().min(1),
      value: z.string().min(1),
      in: z.enum(["header", "query", "cookie"]).default("header"),
    })
    .strict(),
  z.object({ type: z.literal("bearer"), token: tokenSource }).strict(),
  z.object({ type: z.literal("basic"), username: z.string(), password: z.string() }).strict(),
]);

export type OpenApiAuth = z.input<typeof openApiAuthSchema>;
type ParsedAuth = z.output<typeof openApiAuthSchema>;

/** Adds the credential to the outgoing request's headers or query. */
export async function applyAuth(auth: ParsedAuth | undefined, url: URL, headers: Headers): Promise<void> {
  if (!auth) return;
  switch (auth.type) {
    case "apiKey":
      if (auth.in === "query") url.searchParams.set(auth.name, auth.value);
      else if (auth.in === "cookie") headers.append("cookie", `${auth.name}=${encodeURIComponent(auth.value)}`);
      else headers.set(auth.name, auth.value);
      return;
    case "bearer":
      headers.set("authorization", `Bearer ${typeof auth.token === "string" ? auth.token : await auth.token()}`);
      return;
    case "basic":
      headers.set("authorization", `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString("base64")}`);
      return;
  }
}
