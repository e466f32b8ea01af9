import { describe, expect, it } from "@jest/globals";
import { createLogger } from "../src/create-logger.js";

describe("createLogger", () => {
  const failure = () => {
    const error = new Error("cannot open '/srv/agents/.agentkit/sessions.db' (from /opt/other/x.js)");
    error.stack = `Error: ${error.message}\n    at open (/srv/server/node_modules/.pnpm/a@1/node_modules/a/index.js:1:2)`;
    return error;
  };

  it("below debug: messages only, absolute paths relative to the agents directory's parent or cut to their name", () => {
    const lines: string[] = [];
    const logger = createLogger("info", (line) => lines.push(line), "/srv");
    logger.error("Request failed for /srv/agents/a/agent.ts", failure());
    logger.info("ready");
    expect(lines).toEqual([
      "[agentkit] error Request failed for agents/a/agent.ts: cannot open 'agents/.agentkit/sessions.db' (from …/x.js)",
      "[agentkit] info ready",
    ]);
  });

  it("at debug: absolute paths and the stack", () => {
    const lines: string[] = [];
    createLogger("debug", (line) => lines.push(line), "/srv").error("Request failed", failure());
    expect(lines[0]).toContain("'/srv/agents/.agentkit/sessions.db'");
    expect(lines[0]).toContain("\n    at open (/srv/server/node_modules/");
  });

  it("drops what is below the level", () => {
    const lines: string[] = [];
    const logger = createLogger("error", (line) => lines.push(line));
    logger.warn("w");
    logger.info("i");
    logger.error("e");
    expect(lines).toEqual(["[agentkit] error e"]);
  });

  it("json: one object a line with level, time, message and the ids given", () => {
    const lines: string[] = [];
    const logger = createLogger("debug", (line) => lines.push(line), "/srv", { format: "json" });
    logger.debug?.("Run finished", { appName: "a", userId: "u", sessionId: "s", invocationId: "e-1" });
    logger.error("Request failed", new Error("boom\nsecond line"));
    expect(lines).toHaveLength(2);
    const [run, failed] = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(run).toEqual({
      level: "debug",
      time: expect.any(String),
      message: "Run finished",
      app: "a",
      user: "u",
      session: "s",
      invocation: "e-1",
    });
    expect(Number.isNaN(Date.parse(String(run!.time)))).toBe(false);
    expect(failed).toMatchObject({ level: "error", message: "Request failed" });
    expect(String(failed!.error)).toContain("boom\nsecond line");
  });

  it("masks known secrets and bearer credentials in every format", () => {
    for (const format of ["text", "json"] as const) {
      const lines: string[] = [];
      const logger = createLogger("info", (line) => lines.push(line), undefined, {
        format,
        secrets: ["sk-planted-key-1234", "abc"],
      });
      logger.warn("Upstream refused sk-planted-key-1234 with header Authorization: Bearer eyJplanted.token");
      expect(lines.join("\n")).not.toContain("sk-planted-key-1234");
      expect(lines.join("\n")).not.toContain("eyJplanted.token");
      expect(lines.join("\n")).toContain("[REDACTED]");
      // Too short to be a credential: left alone rather than masking ordinary words.
      logger.info("abc");
      expect(lines.at(-1)).toContain("abc");
    }
  });
});
