import { ConfigurationError } from "@agentkit/core";

export interface ChunkOptions {
  /** Maximum characters per chunk (default 1000). */
  chunkSize?: number;
  /** Characters shared by consecutive chunks (default 100; less than chunkSize). */
  chunkOverlap?: number;
}

/**
 * Splits text into chunks of at most `chunkSize` characters, each starting `chunkOverlap`
 * characters before the previous one ended. Chunks end at the last space inside the window
 * and overlaps start after a space, when there is one, so words are not cut.
 */
export function chunkText(text: string, { chunkSize = 1000, chunkOverlap = 100 }: ChunkOptions = {}): string[] {
  if (!Number.isInteger(chunkSize) || chunkSize <= 0)
    throw new ConfigurationError(`chunkSize must be a positive integer; got ${chunkSize}.`);
  if (!Number.isInteger(chunkOverlap) || chunkOverlap < 0 || chunkOverlap >= chunkSize) {
    throw new ConfigurationError(
      `chunkOverlap must be an integer in [0, chunkSize); got ${chunkOverlap} with chunkSize ${chunkSize}.`,
    );
  }
  const chunks: string[] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(text.length, start + chunkSize);
    if (end < text.length) {
      const space = text.lastIndexOf(" ", end);
      // Only break at a space that still leaves progress past the overlap.
      if (space > start + chunkOverlap) end = space;
    }
    const chunk = text.slice(start, end).trim();
    if (chunk) chunks.push(chunk);
    if (end >= text.length) break;
    let next = end - chunkOverlap;
    // Start the overlap at a word boundary rather than mid-word.
    if (next > 0 && !/\s/.test(text[next - 1]!)) {
      const after = text.indexOf(" ", next);
      const before = text.lastIndexOf(" ", next);
      if (after !== -1 && after < end) next = after + 1;
      else if (before > start) next = before + 1; // the overlap is inside one long word: keep it whole
    }
    start = Math.max(next, start + 1);
  }
  return chunks;
}
