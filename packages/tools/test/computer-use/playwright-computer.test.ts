import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { LlmAgent } from "@agentkit/core";
import { ScriptedModel } from "@agentkit/core/testing";
import { ComputerUseError, ComputerUseToolset, PlaywrightComputer } from "../../src/computer-use/index.js";
import { startRunner } from "../helpers.js";

// Elements at fixed pixel positions; every state change is mirrored into the URL hash so the
// reported URL proves what happened in the page.
const PAGE = `<!doctype html><html><body style="margin:0;height:5000px">
<button id="b" style="position:absolute;left:50px;top:50px;width:200px;height:60px"
  onclick="this.textContent='clicked';history.replaceState(null,'','#clicked')">press me</button>
<input id="i" value="old" style="position:absolute;left:50px;top:200px;width:300px;height:40px"
  onkeydown="if(event.key==='Enter')history.replaceState(null,'','#typed='+encodeURIComponent(this.value))">
<div id="h" style="position:absolute;left:500px;top:50px;width:100px;height:100px"
  onmouseenter="history.replaceState(null,'','#hover')"></div>
<script>
addEventListener('scroll',()=>history.replaceState(null,'','#y='+Math.round(scrollY)));
let from;
addEventListener('mousedown',(e)=>{from=e.clientX+','+e.clientY});
addEventListener('mouseup',(e)=>{if(from!==e.clientX+','+e.clientY)history.replaceState(null,'','#drag='+from+'-'+e.clientX+','+e.clientY)});
</script>
</body></html>`;

let server: Server;
let base: string;
beforeAll(async () => {
  server = createServer((req, res) => {
    res.writeHead(200, { "content-type": "text/html" });
    res.end(req.url === "/second" ? "<!doctype html><title>two</title><p>second page</p>" : PAGE);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

/** PIDs of live processes whose command line names the profile directory. */
function processesUsing(dir: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (!readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(dir)) continue;
      if (/^State:\s+Z/m.test(readFileSync(`/proc/${entry}/status`, "utf8"))) continue;
      pids.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return pids;
}

function pngSize(bytes: Uint8Array): [number, number] {
  expect(Buffer.from(bytes.subarray(0, 8)).toString("hex")).toBe("89504e470d0a1a0a");
  const view = Buffer.from(bytes);
  return [view.readUInt32BE(16), view.readUInt32BE(20)];
}

test("PlaywrightComputer drives Chromium: click, type + Enter, key combination, hover, drag, scroll, navigate, back; close ends the browser", async () => {
  const computer = new PlaywrightComputer({ screenSize: [1000, 800] });
  try {
    let state = await computer.navigate(`${base}/`);
    expect(state.url).toBe(`${base}/`);
    expect(pngSize(state.screenshot)).toEqual([1000, 800]);

    state = await computer.clickAt(150, 80);
    expect(state.url).toBe(`${base}/#clicked`);

    state = await computer.typeTextAt(200, 220, "hello world");
    expect(state.url).toBe(`${base}/#typed=hello%20world`);

    // Without clearing, typing appends; Control+A then a key replaces the selection.
    state = await computer.typeTextAt(200, 220, "X", { clearBeforeTyping: false });
    expect(state.url).toBe(`${base}/#typed=hello%20worldX`);
    await computer.keyCombination(["control", "a"]);
    await computer.keyCombination(["z"]);
    state = await computer.keyCombination(["Enter"]);
    expect(state.url).toBe(`${base}/#typed=z`);

    state = await computer.hoverAt(550, 100);
    expect(state.url).toBe(`${base}/#hover`);
    state = await computer.dragAndDrop(700, 400, 800, 500);
    expect(state.url).toBe(`${base}/#drag=700,400-800,500`);

    state = await computer.scrollDocument("down");
    expect(state.url).toMatch(/#y=[1-9]\d*$/);
    const scrolled = Number(/#y=(\d+)/.exec(state.url!)![1]);
    state = await computer.scrollAt(500, 400, "down", 300);
    expect(Number(/#y=(\d+)/.exec(state.url!)![1])).toBe(scrolled + 300);

    state = await computer.navigate(`${base}/second`);
    expect(state.url).toBe(`${base}/second`);
    state = await computer.goBack();
    expect(state.url?.startsWith(`${base}/#`)).toBe(true);

    await expect(computer.keyCombination(["NoSuchKey"])).rejects.toBeInstanceOf(ComputerUseError);

    const dir = computer.userDataDir!;
    expect(processesUsing(dir).length).toBeGreaterThan(0);
    await computer.close();
    expect(processesUsing(dir)).toEqual([]);
    expect(existsSync(dir)).toBe(false);
    await expect(computer.currentState()).rejects.toBeInstanceOf(ComputerUseError);
  } finally {
    await computer.close();
  }
});

test("ComputerUseToolset through a runner: normalized coordinates, native computerUse tool, screenshot as inline part", async () => {
  const computer = new PlaywrightComputer({ screenSize: [1000, 800] });
  const toolset = new ComputerUseToolset({ computer });
  const model = new ScriptedModel({
    model: "gemini-2.5-computer-use-preview-10-2025",
    steps: [
      ScriptedModel.functionCall("navigate", { url: `${base}/` }),
      // (150, 100) on the 0-999 grid is pixel (150, 80) of a 1000x800 screen: the button.
      ScriptedModel.functionCall("click_at", { x: 150, y: 100 }),
      ScriptedModel.functionCall("key_combination", { keys: "Control+A" }),
      ScriptedModel.text("done"),
    ],
  });
  const agent = new LlmAgent({ name: "browser", model, tools: [toolset] });
  const { runner, send } = await startRunner(agent);
  try {
    const events = await send("click the button");
    const responses = events
      .flatMap((e) => e.content?.parts ?? [])
      .flatMap((p) => (p.functionResponse ? [p.functionResponse] : []));
    expect(responses.map((r) => r.name)).toEqual(["navigate", "click_at", "key_combination"]);
    expect(responses[1]!.response?.url).toBe(`${base}/#clicked`);

    const first = model.requests[0]!;
    expect(
      first.config.tools?.some(
        (t) => (t.computerUse as { environment?: string } | undefined)?.environment === "ENVIRONMENT_BROWSER",
      ),
    ).toBe(true);
    expect(first.toolNames).toEqual(
      expect.arrayContaining([
        "click_at",
        "type_text_at",
        "scroll_document",
        "navigate",
        "key_combination",
        "drag_and_drop",
      ]),
    );

    // The model sees the screenshot as an inline PNG part, not base64 inside the JSON.
    const last = model.requests[3]!;
    const sent = last.contents
      .flatMap((c) => c.parts ?? [])
      .flatMap((p) => (p.functionResponse ? [p.functionResponse] : []));
    expect(sent).toHaveLength(3);
    for (const fr of sent) {
      expect(fr.response?.image).toBeUndefined();
      const inline = (fr.parts as { inlineData?: { mimeType: string; data: string } }[])[0]!.inlineData!;
      expect(inline.mimeType).toBe("image/png");
      expect(pngSize(Buffer.from(inline.data, "base64"))).toEqual([1000, 800]);
    }
    model.assertConsumed();
    const dir = computer.userDataDir!;
    expect(processesUsing(dir).length).toBeGreaterThan(0);
    await runner.close(); // closes the toolset, which closes the browser
    expect(processesUsing(dir)).toEqual([]);
    expect(existsSync(dir)).toBe(false);
  } finally {
    await runner.close();
  }
});

test("ComputerUseToolset rejects a missing computer and a bad screen size", () => {
  expect(() => new ComputerUseToolset({} as never)).toThrow(/needs a `computer`/);
  expect(() => new ComputerUseToolset({ computer: new PlaywrightComputer(), screenSize: [0, 10] })).toThrow(
    /screenSize/,
  );
  expect(() => new PlaywrightComputer({ screenSize: [-1, 5] } as never)).toThrow(/Invalid PlaywrightComputer options/);
});
