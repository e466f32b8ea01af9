// Loading the server must not load Node's fetch implementation (undici): an ESM import of
// `node:http` does (its ESM wrapper reads every export, lazy ones included), which costs start-up
// time in every `agentkit api-server`.
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "@jest/globals";

const serverEntry = fileURLToPath(new URL("../src/index.ts", import.meta.url));

function modulesAfterImport(): Promise<string[]> {
  const script = `await import(${JSON.stringify(serverEntry)}); console.log(JSON.stringify(process.moduleLoadList));`;
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ["--conditions=@agentkit/source", "--import", "tsx", "--input-type=module", "-e", script],
      { cwd: fileURLToPath(new URL("..", import.meta.url)) },
      (error, stdout) => (error ? reject(error) : resolve(JSON.parse(stdout) as string[])),
    );
  });
}

describe("start-up modules", () => {
  it("importing @agentkit/server loads no part of Node's fetch implementation", async () => {
    const loaded = await modulesAfterImport();
    // node:http itself is loaded (Express requires it): only its lazy fetch exports must stay unread.
    expect(loaded).toContain("NativeModule http");
    expect(loaded.filter((m) => m.includes("undici"))).toEqual([]);
  });
});
