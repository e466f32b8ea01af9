// What the official dev UI tests read off the wire: the SSE frames and JSON bodies the browser saw.

export interface SseEvent {
  id: string;
  author: string;
  invocationId: string;
  partial?: boolean;
  content?: {
    parts?: {
      text?: string;
      functionCall?: { name: string; args: unknown };
      functionResponse?: { name: string; response: unknown };
    }[];
  };
  actions?: { artifactDelta?: Record<string, number>; stateDelta?: Record<string, unknown> };
}

/** The events of an SSE body (`data: <json>` frames). */
export function sseEvents(text: string): SseEvent[] {
  return text
    .split("\n\n")
    .filter((frame) => frame.startsWith("data: "))
    .map((frame) => JSON.parse(frame.slice("data: ".length)) as SseEvent);
}

/** A JSON body as the test expects it (`null` for none). */
export const json = <T>(text: string | undefined): T => JSON.parse(text ?? "null") as T;
