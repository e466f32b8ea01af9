// Chat with an example agent in the terminal: `pnpm dev` (or `pnpm chat [app]` here).
// Lines typed (or piped in) are sent to the agent; its events print as they come.
// Until the web server exists this is the project's "main job" command.
import { createInterface } from "node:readline/promises";
import { pathToFileURL } from "node:url";
import { join } from "node:path";
import { existsSync } from "node:fs";
import { getFunctionCalls, getFunctionResponses, getTextOf, InMemoryRunner, type BaseAgent } from "@agentkit/core";
import { createModelRegistry } from "@agentkit/models";

const appName = process.argv[2] ?? "assistant";
const file = join(import.meta.dirname, appName, "agent.ts");
if (!existsSync(file)) {
  console.error(`No example named "${appName}" (expected ${file}).`);
  process.exit(2);
}
const { rootAgent } = (await import(pathToFileURL(file).href)) as { rootAgent: BaseAgent };

const runner = new InMemoryRunner({ agent: rootAgent, appName, modelRegistry: createModelRegistry() });
const userId = "terminal-user";
const session = await runner.sessionService.createSession({ appName, userId });
const interactive = process.stdin.isTTY === true;
const rl = createInterface({ input: process.stdin, output: process.stdout, terminal: interactive });
const abort = new AbortController();
process.once("SIGINT", () => {
  abort.abort();
  rl.close();
});

console.log(`agentkit: chatting with "${rootAgent.name}" (${rootAgent.description || "no description"}). Ctrl+D or Ctrl+C to quit.`);
if (interactive) rl.setPrompt("you> "), rl.prompt();
for await (const line of rl) {
  const text = line.trim();
  if (text) {
    if (!interactive) console.log(`you> ${text}`);
    try {
      for await (const event of runner.runAsync({ userId, sessionId: session.id, newMessage: { role: "user", parts: [{ text }] }, signal: abort.signal })) {
        for (const call of getFunctionCalls(event)) console.log(`  [${event.author} calls ${call.name}(${JSON.stringify(call.args ?? {})})]`);
        for (const r of getFunctionResponses(event)) console.log(`  [${r.name} returned ${JSON.stringify(r.response)}]`);
        const answer = getTextOf(event.content);
        if (answer && !event.partial) console.log(`${event.author}> ${answer}`);
        if (event.errorMessage) console.log(`${event.author}! ${event.errorCode ?? "ERROR"}: ${event.errorMessage}`);
      }
    } catch (error) {
      console.error(`error: ${(error as Error).message}`);
    }
  }
  if (interactive) rl.prompt();
}
await runner.close();
