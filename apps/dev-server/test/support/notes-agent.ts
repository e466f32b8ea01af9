// The `notes` app of the failover tests, and the outside service its tool calls. For each user
// message "note <n>" the agent's model calls `save_note({ n })`; the tool saves the artifact
// `note-<n>.txt`, records the version in state, then registers the note with the notary (an
// outside HTTP service, as real tools call APIs) and returns; the model then answers
// "saved note <n> v<version>". Its model is offline and speaks both text and live (BIDI), so one
// app serves `/run`, `/run_sse` and `/run_live`. The replica's name travels in the notary request
// (`AGENTKIT_TEST_REPLICA`), so a test can hold one replica's tool calls while it kills it.
import { createServer, type Server, type ServerResponse } from "node:http";

export const NOTES_AGENT_SOURCE = `import { BaseLlm, FunctionTool, LlmAgent, getTextOf } from "@agentkit/core";
import { z } from "zod";

/** The model's answer to the latest content: a call for "note <n>", the answer for its result. */
function reply(content) {
  const result = content?.parts?.find((p) => p.functionResponse)?.functionResponse;
  if (result) {
    const { n, version } = result.response ?? {};
    return { content: { role: "model", parts: [{ text: "saved note " + n + " v" + version }] }, turnComplete: true };
  }
  const n = Number(/note (\\d+)/.exec(getTextOf(content))?.[1] ?? NaN);
  return { content: { role: "model", parts: [{ functionCall: { name: "save_note", args: { n } } }] } };
}

class NotesConnection {
  queue = [];
  closed = false;
  wake = undefined;
  async sendHistory() {}
  async sendRealtime() {}
  async sendContent(content) {
    this.queue.push(reply(content));
    this.notify();
  }
  async *receive() {
    for (;;) {
      const next = this.queue.shift();
      if (next) yield next;
      else if (this.closed) return;
      else await new Promise((resolve) => (this.wake = resolve));
    }
  }
  async close() {
    this.closed = true;
    this.notify();
  }
  notify() {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}

class NotesModel extends BaseLlm {
  constructor() {
    super({ model: "notes-model" });
  }
  async *generateContentAsync(request) {
    yield reply(request.contents.at(-1));
  }
  async connect() {
    return new NotesConnection();
  }
}

const saveNote = new FunctionTool({
  name: "save_note",
  description: "Saves note n as an artifact.",
  parameters: z.object({ n: z.number().int() }),
  execute: async ({ n }, context) => {
    const version = await context.saveArtifact("note-" + n + ".txt", { text: "note " + n + " of " + context.session.id });
    context.state.set("note_" + n, version);
    context.state.set("last_note", n);
    const registered = await fetch(process.env.AGENTKIT_TEST_NOTARY_URL, {
      method: "POST",
      headers: { "x-replica": process.env.AGENTKIT_TEST_REPLICA ?? "" },
      body: context.session.id + "#" + n,
    });
    if (!registered.ok) throw new Error("the notary refused note " + n);
    return { n, version };
  },
});

export const rootAgent = new LlmAgent({
  name: "notes",
  model: new NotesModel(),
  instruction: "Save each note the user names.",
  tools: [saveNote],
});
`;

/**
 * The outside service `save_note` calls. It answers at once, except that once `hold(name)` is
 * called it keeps the requests of replica `name` open (the tool call is then in progress on that
 * replica) until `releaseAll()`.
 */
export class NotaryServer {
  private holding: string | undefined;
  private readonly held: ServerResponse[] = [];
  private readonly listeners = new Set<() => void>();

  private constructor(private readonly server: Server) {}

  static async start(): Promise<NotaryServer> {
    const server = createServer();
    const notary = new NotaryServer(server);
    server.on("request", (req, res) => {
      req.resume();
      req.once("end", () => notary.onRequest(String(req.headers["x-replica"] ?? ""), res));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return notary;
  }

  get url(): string {
    const address = this.server.address();
    if (!address || typeof address === "string") throw new Error("the notary is not listening");
    return `http://127.0.0.1:${address.port}/notes`;
  }

  /** Tool calls of `replica` in progress (held). */
  get heldCount(): number {
    return this.held.length;
  }

  hold(replica: string): void {
    this.holding = replica;
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Stops holding and answers what was held (a dead replica's sockets just close). */
  releaseAll(): void {
    this.holding = undefined;
    for (const res of this.held.splice(0)) res.end("ok");
  }

  async close(): Promise<void> {
    this.releaseAll();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private onRequest(replica: string, res: ServerResponse): void {
    if (replica === this.holding) {
      this.held.push(res);
      for (const l of this.listeners) l();
      return;
    }
    res.end("ok");
  }
}
