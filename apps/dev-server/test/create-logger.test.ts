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
});
