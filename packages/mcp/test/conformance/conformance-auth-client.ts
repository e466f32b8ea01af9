// The auth/* scenarios of `conformance client`, run the way an agentkit app meets them: a Runner
// whose model calls the MCP server's tools; the MCP toolset's authorization goes through the
// credential flow (adk_request_credential), and this script plays the user: it opens the
// authorization URL (the scenario's server approves at once) and sends the redirect back.
import {
  getFunctionCalls,
  InMemorySessionService,
  LlmAgent,
  REQUEST_CREDENTIAL_FUNCTION_CALL_NAME,
  Runner,
  type AuthConfig,
  type Content,
  type Event,
  type LlmRequest,
  type LlmResponse,
} from "@agentkit/core";
import { ScriptedModel } from "@agentkit/core/testing";
import { McpToolset, type McpAuthOptions } from "../../src/index.js";

const REDIRECT_URI = "http://127.0.0.1:1/callback";
/** The client id metadata document URL the CIMD scenarios expect (SEP-991). */
const CLIENT_METADATA_URL = "https://conformance-test.local/client-metadata.json";
/** Authorization rounds before giving up (scope-retry-limit wants a bounded number). */
const MAX_ROUNDS = 3;

interface ScenarioContext {
  client_id?: string;
  client_secret?: string;
  private_key_pem?: string;
  signing_algorithm?: string;
}

function authOptions(scenario: string, context: ScenarioContext): McpAuthOptions {
  if (scenario.startsWith("auth/client-credentials")) {
    return {
      grant: "client_credentials",
      clientId: context.client_id,
      ...(context.private_key_pem
        ? { privateKeyPem: context.private_key_pem, signingAlgorithm: context.signing_algorithm ?? "ES256" }
        : { clientSecret: context.client_secret }),
    };
  }
  return {
    redirectUri: REDIRECT_URI,
    clientMetadataUrl: CLIENT_METADATA_URL,
    ...(context.client_id ? { clientId: context.client_id, clientSecret: context.client_secret } : {}),
  };
}

/** The model: connects (authorize tool) first, then calls the server's first tool once, then answers. */
function modelStep(request: LlmRequest): LlmResponse {
  const names = Object.keys(request.toolsDict ?? {});
  const last = request.contents.at(-1)?.parts?.at(-1);
  const authorize = names.find((n) => n.startsWith("authorize_"));
  const tool = names.find((n) => !n.startsWith("authorize_"));
  const response = last?.functionResponse;
  if (!response)
    return authorize || tool ? ScriptedModel.functionCall((authorize ?? tool)!, {}) : ScriptedModel.text("no tools");
  const answered = response.response as Record<string, unknown> | undefined;
  if (answered?.connected && tool) return ScriptedModel.functionCall(tool, {});
  return ScriptedModel.text("done");
}

/** Opens the authorization URL as a browser would and returns where the server sends the user back. */
async function authorize(authUri: string): Promise<string> {
  let url = authUri;
  for (let hop = 0; hop < 10; hop++) {
    if (url.startsWith(REDIRECT_URI)) return url;
    const response = await fetch(url, { redirect: "manual" });
    await response.arrayBuffer();
    const location = response.headers.get("location");
    if (!location) throw new Error(`authorization stopped at ${new URL(url).pathname} with HTTP ${response.status}`);
    url = new URL(location, url).toString();
  }
  throw new Error("too many redirects");
}

export async function runAuthScenario(url: string, scenario: string, context: ScenarioContext): Promise<void> {
  const toolset = new McpToolset({
    connection: { type: "streamable-http", url },
    auth: authOptions(scenario, context),
  });
  const model = new ScriptedModel({ steps: Array.from({ length: 20 }, () => modelStep) });
  const sessions = new InMemorySessionService();
  const runner = new Runner({
    appName: "conformance",
    agent: new LlmAgent({ name: "client", model, tools: [toolset] }),
    sessionService: sessions,
  });
  try {
    const session = await sessions.createSession({ appName: "conformance", userId: "user" });
    let message: Content = { role: "user", parts: [{ text: "use the server" }] };
    for (let round = 0; round <= MAX_ROUNDS; round++) {
      const events: Event[] = [];
      for await (const e of runner.runAsync({ userId: "user", sessionId: session.id, newMessage: message }))
        events.push(e);
      for (const e of events) if (e.errorMessage) console.error(`event error: ${e.errorMessage}`);
      const request = events.flatMap(getFunctionCalls).find((c) => c.name === REQUEST_CREDENTIAL_FUNCTION_CALL_NAME);
      if (!request) return;
      if (round === MAX_ROUNDS) throw new Error(`still asked to authorize after ${MAX_ROUNDS} rounds`);
      const authConfig = structuredClone((request.args as { authConfig: AuthConfig }).authConfig);
      const oauth2 = authConfig.exchangedAuthCredential!.oauth2!;
      oauth2.authResponseUri = await authorize(oauth2.authUri!);
      oauth2.redirectUri = REDIRECT_URI;
      message = {
        role: "user",
        parts: [
          {
            functionResponse: {
              id: request.id,
              name: REQUEST_CREDENTIAL_FUNCTION_CALL_NAME,
              response: authConfig as unknown as Record<string, unknown>,
            },
          },
        ],
      };
    }
  } finally {
    await runner.close();
  }
}
