import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import { ConfigurationError, LlmAgent } from "@agentkit/core";
import { ScriptedModel } from "@agentkit/core/testing";
import { computerUseToolsetFromConfig, PlaywrightComputer } from "../../src/computer-use/index.js";
import { startRunner } from "../helpers.js";

jest.setTimeout(90_000);

// A button at fixed pixels; a click is mirrored into the URL hash.
const PAGE = `<!doctype html><html><body style="margin:0">
<button style="position:absolute;left:50px;top:50px;width:200px;height:60px" onclick="history.replaceState(null,'','#clicked')">press</button>
</body></html>`;

let server: Server;
let base: string;
let dir: string;
beforeAll(async () => {
  server = createServer((_req, res) => res.writeHead(200, { "content-type": "text/html" }).end(PAGE));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  dir = mkdtempSync(join(tmpdir(), "agentkit-computer-config-"));
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  rmSync(dir, { recursive: true, force: true });
});

/** Live (non-zombie) processes whose command line names `text`. */
function processesUsing(text: string): number[] {
  return readdirSync("/proc")
    .filter((entry) => {
      if (!/^\d+$/.test(entry)) return false;
      try {
        return (
          readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(text) &&
          !/^State:\s+Z/m.test(readFileSync(`/proc/${entry}/status`, "utf8"))
        );
      } catch {
        return false;
      }
    })
    .map(Number);
}

function pngSize(base64: string): [number, number] {
  const bytes = Buffer.from(base64, "base64");
  return [bytes.readUInt32BE(16), bytes.readUInt32BE(20)];
}

describe("computerUseToolsetFromConfig (YAML agent configs)", () => {
  it("builds a toolset over Playwright's Chromium from snake_case args: viewport, initial_url, profile dir, tool filter; close ends the browser", async () => {
    const toolset = await computerUseToolsetFromConfig(
      {
        executable_path: "/usr/bin/chromium",
        headless: true,
        viewport: { width: 640, height: 480 },
        initial_url: `${base}/`,
        user_data_dir: "profile",
        environment: "ENVIRONMENT_BROWSER",
        timeout: 30,
        tool_filter: ["open_web_browser", "click_at"],
      },
      { baseDir: dir },
    );
    expect(toolset.computer).toBeInstanceOf(PlaywrightComputer);
    // Nothing runs until the first action.
    expect(processesUsing(join(dir, "profile"))).toEqual([]);
    const model = new ScriptedModel({
      steps: [
        ScriptedModel.functionCall("open_web_browser"),
        // (235, 167) on the 0-999 grid is pixel (150, 80) of 640x480: the button.
        ScriptedModel.functionCall("click_at", { x: 235, y: 167 }),
        ScriptedModel.text("done"),
      ],
    });
    const { runner, send } = await startRunner(new LlmAgent({ name: "browser", model, tools: [toolset] }));
    try {
      const events = await send("press the button");
      expect(model.requests[0]!.toolNames.sort()).toEqual(["click_at", "open_web_browser"]);
      const responses = events
        .flatMap((e) => e.content?.parts ?? [])
        .flatMap((p) => (p.functionResponse ? [p.functionResponse] : []));
      expect(responses.map((r) => r.response?.url)).toEqual([`${base}/`, `${base}/#clicked`]);
      expect(pngSize((responses[0]!.response!.image as { data: string }).data)).toEqual([640, 480]);
      expect((toolset.computer as PlaywrightComputer).userDataDir).toBe(join(dir, "profile"));
      expect(processesUsing(join(dir, "profile")).length).toBeGreaterThan(0);
    } finally {
      await runner.close();
    }
    expect(processesUsing(join(dir, "profile"))).toEqual([]);
  });

  it("accepts camelCase args and screen_size", async () => {
    const toolset = await computerUseToolsetFromConfig({
      screenSize: [800, 600],
      initialUrl: `${base}/`,
      browserArgs: ["--no-sandbox", "--disable-gpu"],
    });
    expect(await toolset.computer.screenSize()).toEqual([800, 600]);
    await toolset.close();
  });

  it("rejects bad args, another environment and a missing browser with a ConfigurationError naming the field", async () => {
    const fails = async (args: Record<string, unknown>, pattern: RegExp) => {
      const error = await computerUseToolsetFromConfig(args).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ConfigurationError);
      expect((error as Error).message).toMatch(pattern);
    };
    await fails(
      { executable_path: join(dir, "no-such-chromium") },
      /executable_path: no executable browser at .*no-such-chromium/,
    );
    await fails({ executable_path: dir }, /executable_path: no executable browser/);
    await fails({ environment: "ENVIRONMENT_UNSPECIFIED" }, /environment: only ENVIRONMENT_BROWSER/);
    await fails(
      { screen_size: [640, 480], viewport: { width: 640, height: 480 } },
      /screen_size or viewport, not both/,
    );
    await fails({ screen_size: [640] }, /screen_size/);
    await fails({ viewport: { width: -1, height: 480 } }, /viewport\.width/);
    await fails({ headless: "yes" }, /headless/);
    await fails({ computer: "vm" }, /Unrecognized key: "computer"/);
  });
});
