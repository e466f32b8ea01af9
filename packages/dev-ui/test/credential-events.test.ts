import { describe, expect, it } from "@jest/globals";
import { credentialDetails, oauthAnswer, pendingCalls, secretAnswer } from "../src/ui/lib/chat-events.js";
import type { AgentEvent, FunctionCall } from "../src/ui/lib/types.js";

const request: FunctionCall & { id: string } = {
  id: "adk-req",
  name: "adk_request_credential",
  args: {
    functionCallId: "call-1",
    authConfig: {
      authScheme: { type: "oauth2" },
      credentialKey: "k",
      exchangedAuthCredential: {
        authType: "oauth2",
        oauth2: { clientId: "c", authUri: "https://idp.example/auth?client_id=c&state=s1", state: "s1" },
      },
    },
  },
};

describe("credential requests in the dev UI", () => {
  it("lists an adk_request_credential call as a pending credential request", () => {
    const event = {
      id: "e1",
      author: "agent",
      content: { role: "user", parts: [{ functionCall: request }] },
      longRunningToolIds: ["adk-req"],
      actions: {},
    } as unknown as AgentEvent;
    expect(pendingCalls([event])).toEqual([{ eventId: "e1", call: request, kind: "credential" }]);
  });

  it("sends the popup back to this UI's callback unless the tool fixed a redirect URI", () => {
    const details = credentialDetails(request, "http://127.0.0.1:8000");
    expect(details.host).toBe("idp.example");
    expect(details.redirectUri).toBe("http://127.0.0.1:8000/dev-ui/oauth/callback");
    expect(new URL(details.authUri!).searchParams.get("redirect_uri")).toBe(details.redirectUri);

    const fixed = structuredClone(request);
    const oauth2 = (fixed.args!.authConfig as { exchangedAuthCredential: { oauth2: { authUri: string } } })
      .exchangedAuthCredential.oauth2;
    oauth2.authUri += "&redirect_uri=https%3A%2F%2Fapp.example%2Fcb";
    expect(credentialDetails(fixed, "http://127.0.0.1:8000").redirectUri).toBe("https://app.example/cb");
  });

  it("answers with the request's authConfig and the redirect, as ADK's dev UI does", () => {
    const answer = oauthAnswer(request, "http://127.0.0.1:8000/dev-ui/oauth/callback?code=x&state=s1", "http://r");
    expect(answer).toMatchObject({
      credentialKey: "k",
      exchangedAuthCredential: {
        oauth2: {
          authResponseUri: "http://127.0.0.1:8000/dev-ui/oauth/callback?code=x&state=s1",
          redirectUri: "http://r",
        },
      },
    });
    expect(secretAnswer(request, "apiKey", "sk-1")).toMatchObject({
      exchangedAuthCredential: { authType: "apiKey", apiKey: "sk-1" },
    });
  });
});
