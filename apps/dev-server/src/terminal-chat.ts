import { createInterface } from "node:readline/promises";
import { basename, dirname, resolve } from "node:path";
import { getFunctionCalls, getFunctionResponses, getTextOf, Runner } from "@agentkit/core";
import { createModelRegistry } from "@agentkit/models";
import { createDirectoryAgentLoader } from "@agentkit/server";
import { createServices, type ServiceUris } from "./create-services.js";

export interface TerminalChatOptions extends ServiceUris {
  /** The agent's folder (an app folder of an agents directory). */
  agentDir: string;
  input?: NodeJS.ReadableStream;
  output?: NodeJS.WritableStream;
  userId?: string;
}

/**
 * `agentkit run <agent_dir>`: chat with one agent in the terminal. Each line (typed or piped)
 * is a user message; tool calls, tool results, answers and error events print as they come.
 * Sessions are in memory unless a session service URI is given.
 */
export async function runTerminalChat(options: TerminalChatOptions): Promise<void> {
  const agentDir = resolve(options.agentDir);
  const appName = basename(agentDir);
  const output = options.output ?? process.stdout;
  const print = (line: string) => output.write(`${line}\n`);
  const modelRegistry = createModelRegistry();
  const loader = createDirectoryAgentLoader({ agentsDir: dirname(agentDir), modelRegistry });
  const services = await createServices(
    {
      sessionServiceUri: options.sessionServiceUri ?? "memory://",
      artifactServiceUri: options.artifactServiceUri ?? "memory://",
      ...(options.memoryServiceUri ? { memoryServiceUri: options.memoryServiceUri } : {}),
    },
    { agentsDir: dirname(agentDir) },
  );
  const abort = new AbortController();
  const onSigint = () => abort.abort();
  process.once("SIGINT", onSigint);
  try {
    const loaded = await loader.loadApp(appName);
    const runner = loaded.app
      ? new Runner({
          app: loaded.app,
          ...servicesOf(services),
          modelRegistry: loaded.app.modelRegistry ?? modelRegistry,
        })
      : new Runner({ appName, agent: loaded.rootAgent, ...servicesOf(services), modelRegistry });
    const userId = options.userId ?? "terminal-user";
    const session = await services.sessionService.createSession({ appName, userId });
    const input = options.input ?? process.stdin;
    const interactive = input === process.stdin && process.stdin.isTTY === true;
    const rl = createInterface({ input, output, terminal: interactive });
    abort.signal.addEventListener("abort", () => rl.close(), { once: true });
    const agent = loaded.rootAgent;
    print(
      `agentkit: chatting with "${agent.name}" (${agent.description || "no description"}). Ctrl+D or Ctrl+C to quit.`,
    );
    if (interactive) {
      rl.setPrompt("you> ");
      rl.prompt();
    }
    try {
      for await (const line of rl) {
        const text = line.trim();
        if (text) {
          if (!interactive) print(`you> ${text}`);
          try {
            for await (const event of runner.runAsync({
              userId,
              sessionId: session.id,
              newMessage: { role: "user", parts: [{ text }] },
              signal: abort.signal,
            })) {
              for (const call of getFunctionCalls(event))
                print(`  [${event.author} calls ${call.name}(${JSON.stringify(call.args ?? {})})]`);
              for (const r of getFunctionResponses(event))
                print(`  [${r.name} returned ${JSON.stringify(r.response)}]`);
              const answer = getTextOf(event.content);
              if (answer && !event.partial) print(`${event.author}> ${answer}`);
              if (event.errorMessage) print(`${event.author}! ${event.errorCode ?? "ERROR"}: ${event.errorMessage}`);
            }
          } catch (error) {
            if (abort.signal.aborted) break;
            print(`error: ${(error as Error).message}`);
          }
        }
        if (interactive) rl.prompt();
      }
    } finally {
      rl.close();
      await runner.close();
    }
  } finally {
    process.off("SIGINT", onSigint);
    await loader.close();
    await services.close();
  }
}

function servicesOf(services: Awaited<ReturnType<typeof createServices>>) {
  return {
    sessionService: services.sessionService,
    artifactService: services.artifactService,
    memoryService: services.memoryService,
    credentialService: services.credentialService,
  };
}
