/**
 * Incremental parser of the run_sse stream (http-api.md 5.1): frames are `data: <json>` lines
 * ended by a blank line; `data:` may come without the space (Java). Bytes arrive in arbitrary
 * chunks, so an unfinished line waits for the next chunk. Each frame is parsed once.
 */
export class SseParser {
  private buffer = "";
  private dataLines: string[] = [];

  /** Feeds text and returns the complete frames it finished, parsed. */
  push(text: string): unknown[] {
    this.buffer += text;
    const frames: unknown[] = [];
    let newline: number;
    while ((newline = this.buffer.indexOf("\n")) >= 0) {
      const line = this.buffer.slice(0, newline).replace(/\r$/, "");
      this.buffer = this.buffer.slice(newline + 1);
      this.line(line, frames);
    }
    return frames;
  }

  /** Ends the stream: a last frame without its blank line still counts. */
  end(): unknown[] {
    const frames: unknown[] = [];
    if (this.buffer) this.line(this.buffer.replace(/\r$/, ""), frames);
    this.buffer = "";
    this.line("", frames);
    return frames;
  }

  private line(line: string, frames: unknown[]): void {
    if (line === "") {
      if (this.dataLines.length > 0) frames.push(parseFrame(this.dataLines.join("\n")));
      this.dataLines = [];
      return;
    }
    if (line.startsWith(":")) return; // comment / heartbeat
    if (line.startsWith("data:")) this.dataLines.push(line.slice(5).replace(/^ /, ""));
    // other fields (event:, id:, retry:) are not part of this protocol and are ignored
  }
}

/** A frame that is not JSON becomes an error frame, so it is shown instead of swallowed. */
function parseFrame(data: string): unknown {
  try {
    return JSON.parse(data);
  } catch {
    return { error: `Unreadable stream frame: ${data.slice(0, 200)}` };
  }
}

/** The error message of a stream frame (`{"error": ...}`), if it is one. */
export function frameError(frame: unknown): string | undefined {
  if (typeof frame !== "object" || frame === null || !("error" in frame)) return undefined;
  const error = (frame as { error: unknown }).error;
  return typeof error === "string" ? error : JSON.stringify(error);
}
