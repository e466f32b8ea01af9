import type { S3Client } from "@aws-sdk/client-s3";

/** What went over the wire: each command's name and its HTTP request headers. */
export interface RecordedCommand {
  name: string;
  headers: Record<string, string>;
}

/** Records every command a client sends (a middleware at the finalize step, after signing). */
export function recordCommands(client: S3Client): RecordedCommand[] {
  const seen: RecordedCommand[] = [];
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const request = args.request as { headers?: Record<string, string> };
      seen.push({ name: context.commandName ?? "?", headers: { ...(request.headers ?? {}) } });
      return next(args);
    },
    { step: "finalizeRequest", name: "agentkitTestRecorder" },
  );
  return seen;
}
