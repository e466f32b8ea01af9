import { contentField, createSessionSchema, parseBody, runRequestSchema } from "./request-schemas.js";

/**
 * Builds the request schemas of an agent flow (`POST .../sessions`, `/run`, `/run_sse`) and
 * parses one body of each, shaped as a Python client sends it (snake_case keys, a message):
 * zod builds a schema on first use and compiles its parser on the first parse, which cost a
 * warmed server's first flow about 3.5 of its 15-18 ms of CPU (bench/README.md, "First flows of
 * a warmed server"). Then one of each as a JS client sends it (camelCase keys), which takes the
 * plain path (`plain-body.ts`) instead. Nothing is stored.
 */
export function warmUpRequestParsing(): void {
  parseBody(createSessionSchema, { state: { warm: true }, session_id: "warm-up", events: [] });
  const run = parseBody(runRequestSchema, {
    app_name: "warm-up",
    user_id: "warm-up",
    session_id: "warm-up",
    new_message: { role: "user", parts: [{ text: "warm up" }] },
    state_delta: { warm: true },
    streaming: false,
  });
  contentField(run.newMessage, "newMessage");
  parseBody(createSessionSchema, { sessionId: "warm-up" });
  parseBody(runRequestSchema, { appName: "warm-up", userId: "warm-up", sessionId: "warm-up", newMessage: {} });
}
