// The CLI's authentication flags: parsing, the refusal to expose a server without auth, and the
// real `agentkit` command serving with API keys from the environment or a file.
import { afterAll, describe, expect, it } from "@jest/globals";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CliUsageError } from "../src/cli-usage-error.js";
import { HELP_TEXT } from "../src/help-text.js";
import { main } from "../src/main.js";
import { parseCliArgs, type ServeOptions } from "../src/parse-cli-args.js";
import { devServerAuth } from "../src/server-auth.js";
import { EXAMPLES_DIR as examples, OFFLINE_ENV, startCli, type CliProcess } from "./support/cli-process.js";

const ALICE = "alice-key-0123456789abcdef";
const ROOT = "root-key-0123456789abcdef0";
const data = mkdtempSync(join(tmpdir(), "agentkit-auth-cli-"));
const children: CliProcess[] = [];
afterAll(async () => {
  await Promise.all(children.map((c) => c.stop()));
  rmSync(data, { recursive: true, force: true });
});

const serve = (argv: string[], env: NodeJS.ProcessEnv = {}): ServeOptions => {
  const cli = parseCliArgs(argv, env);
  if (cli.command !== "web" && cli.command !== "api-server") throw new Error("not a server command");
  return cli.options;
};

describe("auth flags", () => {
  it("reads --auth api-key with a keys file, or the keys from AGENTKIT_API_KEYS", () => {
    expect(serve(["api-server", "--auth", "api-key", "--api-keys-file", "/k.txt"]).auth).toEqual({
      mode: "api-key",
      keysFile: "/k.txt",
    });
    expect(serve(["api-server"], { AGENTKIT_AUTH: "api-key", AGENTKIT_API_KEYS: "k u" }).auth).toEqual({
      mode: "api-key",
      keysText: "k u",
    });
    expect(serve(["api-server"], { AGENTKIT_AUTH: "api-key", AGENTKIT_API_KEYS_FILE: "/e.txt" }).auth).toEqual({
      mode: "api-key",
      keysFile: "/e.txt",
    });
  });

  it("reads --auth jwt with its flags or AGENTKIT_JWT_* variables", () => {
    expect(
      serve([
        "web",
        "--auth",
        "jwt",
        "--jwt-jwks-url",
        "https://idp.test/jwks",
        "--jwt-issuer",
        "https://idp.test",
        "--jwt-audience",
        "agentkit,other",
        "--jwt-user-claim",
        "email",
      ]).auth,
    ).toEqual({
      mode: "jwt",
      jwksUrl: "https://idp.test/jwks",
      issuer: ["https://idp.test"],
      audience: ["agentkit", "other"],
      userClaim: "email",
    });
    const env = {
      AGENTKIT_AUTH: "jwt",
      AGENTKIT_JWT_PUBLIC_KEY_FILE: "/key.pem",
      AGENTKIT_JWT_ISSUER: "iss",
      AGENTKIT_JWT_AUDIENCE: "aud",
    };
    expect(serve(["web"], env).auth).toEqual({
      mode: "jwt",
      publicKeyFile: "/key.pem",
      issuer: ["iss"],
      audience: ["aud"],
      userClaim: "sub",
    });
  });

  it("reads --allowed-hosts and --insecure-no-auth, each with its variable", () => {
    const options = serve([
      "api-server",
      "--allowed-hosts",
      "a.test,b.test",
      "--allowed-hosts",
      "c.test",
      "--insecure-no-auth",
    ]);
    expect([options.allowedHosts, options.insecureNoAuth]).toEqual([["a.test", "b.test", "c.test"], true]);
    const fromEnv = serve(["api-server"], { AGENTKIT_ALLOWED_HOSTS: "x.test", AGENTKIT_INSECURE_NO_AUTH: "1" });
    expect([fromEnv.allowedHosts, fromEnv.insecureNoAuth]).toEqual([["x.test"], true]);
  });

  it.each([
    [["web", "--auth", "basic"], /--auth must be one of none, api-key, jwt/],
    [["web", "--auth", "api-key"], /--auth api-key needs the keys/],
    [["web", "--api-keys-file", "/k"], /--api-keys-file applies to --auth api-key only/],
    [["web", "--auth", "api-key", "--api-keys-file", "/k", "--jwt-issuer", "i"], /--jwt-issuer applies to --auth jwt/],
    [["web", "--auth", "jwt", "--jwt-issuer", "i", "--jwt-audience", "a"], /exactly one of --jwt-jwks-url/],
    [["web", "--auth", "jwt", "--jwt-jwks-url", "https://x", "--jwt-audience", "a"], /needs --jwt-issuer/],
    [["web", "--auth", "jwt", "--jwt-jwks-url", "https://x", "--jwt-issuer", "i"], /needs --jwt-audience/],
    [["web", "--auth", "api-key", "--api-keys-file", "/k", "--insecure-no-auth"], /--insecure-no-auth contradicts/],
    [["run", "agent", "--auth", "api-key"], /agentkit run: .*auth/],
  ])("rejects %j with a usage error", (argv, message) => {
    expect(() => parseCliArgs(argv, {})).toThrow(CliUsageError);
    expect(() => parseCliArgs(argv, {})).toThrow(message);
  });

  it("refuses a non-loopback host without auth, saying how to turn it on", () => {
    for (const host of ["0.0.0.0", "::", "10.1.2.3", "agents.example.com"]) {
      const error = (() => {
        try {
          devServerAuth(serve(["api-server", "--host", host]), "api-server");
        } catch (e) {
          return e as Error;
        }
        return undefined;
      })();
      expect(error).toBeInstanceOf(CliUsageError);
      expect(error!.message).toContain(`refusing to listen on ${host} without authentication`);
      expect(error!.message).toContain("--auth api-key --api-keys-file <file>");
      expect(error!.message).toContain("--insecure-no-auth");
    }
    for (const host of ["127.0.0.1", "localhost", "::1"])
      expect(devServerAuth(serve(["web", "--host", host]), "web")).toEqual({});
    expect(devServerAuth(serve(["web", "--host", "0.0.0.0", "--insecure-no-auth"]), "web").banner).toMatch(
      /auth: NONE \(--insecure-no-auth\)/,
    );
  });

  it("agentkit help lists every auth flag with its variable", () => {
    for (const text of [
      "--auth none|api-key|jwt",
      "AGENTKIT_AUTH",
      "--api-keys-file <file>",
      "AGENTKIT_API_KEYS_FILE",
      "AGENTKIT_API_KEYS",
      "--jwt-jwks-url <url>",
      "AGENTKIT_JWT_JWKS_URL",
      "--jwt-public-key-file <pem>",
      "AGENTKIT_JWT_PUBLIC_KEY_FILE",
      "--jwt-issuer <iss>",
      "AGENTKIT_JWT_ISSUER",
      "--jwt-audience <aud>",
      "AGENTKIT_JWT_AUDIENCE",
      "--jwt-user-claim <claim>",
      "AGENTKIT_JWT_USER_CLAIM",
      "--allowed-hosts <h1,h2>",
      "AGENTKIT_ALLOWED_HOSTS",
      "--insecure-no-auth",
      "AGENTKIT_INSECURE_NO_AUTH",
    ])
      expect(HELP_TEXT).toContain(text);
  });
});

describe("keys in the environment", () => {
  it("are removed from the environment once read (agents' subprocesses do not inherit them)", async () => {
    const env: NodeJS.ProcessEnv = { AGENTKIT_API_KEYS: "too-short alice", KEEP: "1" };
    let err = "";
    const sink = (write: (s: string) => void) =>
      ({
        write: (chunk: string) => {
          write(String(chunk));
          return true;
        },
      }) as unknown as NodeJS.WritableStream;
    const code = await main(["api-server", examples, "--port", "0", "--auth", "api-key"], {
      stdout: sink(() => {}),
      stderr: sink((s) => (err += s)),
      env,
    });
    expect(code).toBe(1);
    expect(err).toContain("API keys: AGENTKIT_API_KEYS line 1: the key is shorter than 16 characters.");
    expect(err).not.toContain("too-short");
    expect(env).toEqual({ KEEP: "1" });
  });
});

describe("the agentkit command", () => {
  function start(args: string[], env: Record<string, string> = {}): CliProcess {
    const p = startCli(args, { ...OFFLINE_ENV, ...env });
    children.push(p);
    return p;
  }
  const memory = ["--session-service-uri", "memory://", "--artifact-service-uri", "memory://"];

  it("refuses to listen on 0.0.0.0 without auth (exit 2) and starts with --insecure-no-auth", async () => {
    const refused = start(["api-server", examples, "--host", "0.0.0.0", "--port", "0", ...memory]);
    expect(await refused.exited).toBe(2);
    expect(refused.errors()).toContain("refusing to listen on 0.0.0.0 without authentication");
    expect(refused.errors()).toContain("--insecure-no-auth");
    const open = start(["api-server", examples, "--host", "0.0.0.0", "--port", "0", "--insecure-no-auth", ...memory]);
    const url = await open.listening();
    expect(open.output()).toContain("auth: NONE (--insecure-no-auth)");
    expect((await fetch(`${url}/list-apps`)).status).toBe(200);
    await open.stop();
  });

  it("serves 0.0.0.0 with API keys from AGENTKIT_API_KEYS: 401 without a key, own data only", async () => {
    const p = start(["api-server", examples, "--host", "0.0.0.0", "--port", "0", "--auth", "api-key", ...memory], {
      AGENTKIT_API_KEYS: `${ALICE} alice; ${ROOT} root admin`,
    });
    const url = await p.listening();
    expect(p.output()).toContain("auth: api-key (keys from AGENTKIT_API_KEYS)");
    const missing = await fetch(`${url}/list-apps`);
    expect(missing.status).toBe(401);
    expect(missing.headers.get("www-authenticate")).toBe('Bearer realm="agentkit"');
    const auth = (key: string) => ({ headers: { Authorization: `Bearer ${key}` } });
    expect((await fetch(`${url}/list-apps`, auth(ALICE))).status).toBe(200);
    expect((await fetch(`${url}/apps/assistant/users/alice/sessions`, auth(ALICE))).status).toBe(200);
    expect((await fetch(`${url}/apps/assistant/users/bob/sessions`, auth(ALICE))).status).toBe(403);
    expect((await fetch(`${url}/apps/assistant/users/bob/sessions`, auth(ROOT))).status).toBe(200);
    expect((await fetch(`${url}/health`)).status).toBe(200);
    expect(p.output() + p.errors()).not.toContain(ALICE);
    await p.stop();
  });

  it("a bad line of the keys file fails the start naming the line, never the key (exit 1)", async () => {
    const file = join(data, "keys.txt");
    writeFileSync(file, `# keys\n${ALICE} alice\nshort-secret-ab root admin\n`);
    const p = start(["web", examples, "--port", "0", "--auth", "api-key", "--api-keys-file", file, ...memory]);
    expect(await p.exited).toBe(1);
    expect(p.errors()).toContain(`API keys: ${file} line 3: the key is shorter than 16 characters.`);
    expect(p.errors()).not.toContain("short-secret-ab");
  });
});
