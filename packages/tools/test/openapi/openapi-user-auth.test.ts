import { generateKeyPairSync, verify } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import {
  getFunctionCalls,
  getFunctionResponses,
  InMemoryCredentialService,
  InMemorySessionService,
  LlmAgent,
  REQUEST_CREDENTIAL_FUNCTION_CALL_NAME,
  Runner,
  type AuthConfig,
  type Content,
  type Event,
  type FunctionCall,
} from "@agentkit/core";
import { ScriptedModel } from "@agentkit/core/testing";
import { startOAuthProvider, type OAuthTestProvider } from "@agentkit/test-support/oauth-provider";
import { OpenApiSpecError, OpenApiToolset } from "../../src/openapi/index.js";

const REDIRECT = "http://127.0.0.1/callback";
const API_KEY = "weather-key-7d1e";
let provider: OAuthTestProvider;
let api: Server;
let apiUrl: string;
const seenAuth: (string | undefined)[] = [];

beforeAll(async () => {
  provider = await startOAuthProvider();
  // /me needs a user token (introspected), /weather an API key, /health nothing.
  api = createServer((req, res) => {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    seenAuth.push(req.headers.authorization);
    if (req.url === "/health") return send(200, { ok: true });
    if (req.url?.startsWith("/weather")) {
      return req.headers["x-api-key"] === API_KEY ? send(200, { sunny: true }) : send(401, { error: "key" });
    }
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
    void (token ? provider.introspect(token) : Promise.resolve<Record<string, unknown>>({ active: false })).then(
      (info) => (info.active ? send(200, { user: info.sub }) : send(401, { error: "invalid_token" })),
    );
  });
  await new Promise<void>((r) => api.listen(0, "127.0.0.1", r));
  apiUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((r) => api?.close(() => r()));
  await provider?.close();
});

function spec(): Record<string, unknown> {
  return {
    openapi: "3.0.3",
    info: { title: "t", version: "1" },
    servers: [{ url: apiUrl }],
    security: [{ userAuth: ["api.read"] }],
    components: {
      securitySchemes: {
        userAuth: {
          type: "oauth2",
          flows: {
            authorizationCode: {
              authorizationUrl: provider.authorizationEndpoint,
              tokenUrl: provider.tokenEndpoint,
              scopes: { openid: "sign in", "api.read": "read" },
            },
          },
        },
        weatherKey: { type: "apiKey", in: "header", name: "x-api-key" },
      },
    },
    paths: {
      "/me": { get: { operationId: "getMe", responses: { "200": { description: "ok" } } } },
      "/weather": {
        get: { operationId: "getWeather", security: [{ weatherKey: [] }], responses: { "200": { description: "ok" } } },
      },
      "/health": { get: { operationId: "getHealth", security: [], responses: { "200": { description: "ok" } } } },
    },
  };
}

function toolset(): OpenApiToolset {
  return new OpenApiToolset({
    spec: spec(),
    authCredentials: {
      userAuth: {
        authType: "oauth2",
        oauth2: { clientId: provider.clientId, clientSecret: provider.clientSecret, redirectUri: REDIRECT },
      },
      weatherKey: { authType: "apiKey", apiKey: API_KEY },
    },
  });
}

class App {
  readonly model = new ScriptedModel();
  readonly sessions = new InMemorySessionService();
  readonly credentials = new InMemoryCredentialService();
  readonly runner: Runner;
  constructor() {
    this.runner = new Runner({
      appName: "app",
      agent: new LlmAgent({ name: "assistant", model: this.model, tools: [toolset()] }),
      sessionService: this.sessions,
      credentialService: this.credentials,
    });
  }
  async run(userId: string, sessionId: string, message: Content): Promise<Event[]> {
    const out: Event[] = [];
    for await (const e of this.runner.runAsync({ userId, sessionId, newMessage: message })) out.push(e);
    return out;
  }
  call(name: string): void {
    this.model.push(ScriptedModel.functionCall(name, {}));
  }
  answer(): void {
    this.model.push(ScriptedModel.text("done"));
  }
}

const hi: Content = { role: "user", parts: [{ text: "hi" }] };

function request(events: Event[]): FunctionCall | undefined {
  return events.flatMap(getFunctionCalls).find((c) => c.name === REQUEST_CREDENTIAL_FUNCTION_CALL_NAME);
}

function answer(req: FunctionCall, redirect: string): Content {
  const authConfig = structuredClone((req.args as { authConfig: AuthConfig }).authConfig);
  authConfig.exchangedAuthCredential!.oauth2!.authResponseUri = redirect;
  authConfig.exchangedAuthCredential!.oauth2!.redirectUri = REDIRECT;
  return {
    role: "user",
    parts: [
      {
        functionResponse: {
          id: req.id,
          name: REQUEST_CREDENTIAL_FUNCTION_CALL_NAME,
          response: authConfig as unknown as Record<string, unknown>,
        },
      },
    ],
  };
}

describe("OpenApiToolset with the spec's security schemes", () => {
  it("asks each user to authorize an OAuth2 operation, then calls it with that user's token", async () => {
    const app = new App();
    for (const [userId, account] of [
      ["u-alice", "alice"],
      ["u-bob", "bob"],
    ] as const) {
      const session = (await app.sessions.createSession({ appName: "app", userId })).id;
      app.call("get_me");
      const first = await app.run(userId, session, hi);
      const req = request(first)!;
      expect(getFunctionResponses(first[1]!)[0]!.response).toMatchObject({ pending: true });
      const authUri = (req.args as { authConfig: AuthConfig }).authConfig.exchangedAuthCredential!.oauth2!.authUri!;
      expect(new URL(authUri).searchParams.get("scope")).toBe("openid api.read");
      app.answer();
      const second = await app.run(userId, session, answer(req, await provider.authorize(authUri, account)));
      expect(getFunctionResponses(second[0]!)[0]!.response).toEqual({ user: account });
    }
  });

  it("uses an API key scheme and public operations without asking anyone", async () => {
    const app = new App();
    const session = (await app.sessions.createSession({ appName: "app", userId: "u" })).id;
    app.model.push(ScriptedModel.functionCalls([{ name: "get_weather" }, { name: "get_health" }]));
    app.answer();
    const events = await app.run("u", session, hi);
    expect(request(events)).toBeUndefined();
    expect(getFunctionResponses(events[1]!).map((r) => r.response)).toEqual([{ sunny: true }, { ok: true }]);
  });

  it("drops a revoked token on 401 and asks the user again", async () => {
    const app = new App();
    const session = (await app.sessions.createSession({ appName: "app", userId: "u-rev" })).id;
    app.call("get_me");
    const req = request(await app.run("u-rev", session, hi))!;
    const authUri = (req.args as { authConfig: AuthConfig }).authConfig.exchangedAuthCredential!.oauth2!.authUri!;
    app.answer();
    await app.run("u-rev", session, answer(req, await provider.authorize(authUri, "rita")));
    const token = /^Bearer (.+)$/.exec(seenAuth.filter(Boolean).at(-1)!)![1]!;
    await provider.revoke(token);

    app.call("get_me");
    const again = await app.run("u-rev", session, hi);
    expect(request(again)).toBeDefined();
    expect(getFunctionResponses(again[1]!)[0]!.response).toMatchObject({ pending: true });
  });

  it("refuses credentials for a scheme the spec does not have", () => {
    expect(
      () => new OpenApiToolset({ spec: spec(), authCredentials: { nope: { authType: "apiKey", apiKey: "x" } } }),
    ).toThrow(OpenApiSpecError);
  });
});

describe("a service account credential on an OpenAPI scheme", () => {
  it("is exchanged for a bearer token through the service-account path", async () => {
    const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const tokenServer = createServer((req, res) => {
      let body = "";
      req.on("data", (d: Buffer) => (body += d.toString()));
      req.on("end", () => {
        const [h, c, s] = (new URLSearchParams(body).get("assertion") ?? "").split(".");
        const ok =
          h && c && s && verify("RSA-SHA256", Buffer.from(`${h}.${c}`), publicKey, Buffer.from(s, "base64url"));
        res.writeHead(ok ? 200 : 400, { "content-type": "application/json" });
        res.end(
          JSON.stringify(
            ok ? { access_token: "sa-token", expires_in: 3600, token_type: "Bearer" } : { error: "invalid_grant" },
          ),
        );
      });
    });
    await new Promise<void>((r) => tokenServer.listen(0, "127.0.0.1", r));
    try {
      const tokenUri = `http://127.0.0.1:${(tokenServer.address() as AddressInfo).port}/token`;
      const tools = new OpenApiToolset({
        spec: spec(),
        authScheme: { type: "http", scheme: "bearer" },
        authCredential: {
          authType: "serviceAccount",
          serviceAccount: {
            scopes: ["https://www.googleapis.com/auth/cloud-platform"],
            serviceAccountCredential: {
              type: "service_account",
              projectId: "p",
              privateKeyId: "k1",
              privateKey: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
              clientEmail: "robot@p.iam.gserviceaccount.com",
              clientId: "1",
              authUri: "",
              tokenUri,
              authProviderX509CertUrl: "",
              clientX509CertUrl: "",
              universeDomain: "googleapis.com",
            },
          },
        },
      });
      const app = new App();
      const runner = new Runner({
        appName: "app",
        agent: new LlmAgent({ name: "assistant", model: app.model, tools: [tools] }),
        sessionService: app.sessions,
      });
      const session = (await app.sessions.createSession({ appName: "app", userId: "svc" })).id;
      app.call("get_health");
      app.answer();
      seenAuth.length = 0;
      for await (const _ of runner.runAsync({ userId: "svc", sessionId: session, newMessage: hi })) void _;
      expect(seenAuth).toEqual(["Bearer sa-token"]);
    } finally {
      await new Promise<void>((r) => tokenServer.close(() => r()));
    }
  });
});
