import { getTextOf } from "../content/content.js";
import type { Session } from "../sessions/session.js";
import {
  BaseMemoryService,
  type MemoryEntry,
  type SearchMemoryRequest,
  type SearchMemoryResponse,
} from "./base-memory-service.js";

interface Remembered {
  entry: MemoryEntry;
  /** Float seconds, for ranking. */
  timestamp: number;
  /** Lower-cased words of the event's text. */
  words: Set<string>;
}

/** Lower-cased words (letters and digits) of a text. */
function wordsOf(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/**
 * Keyword memory in process memory (tests, development): remembers the text events of
 * ingested sessions per (app, user) and finds them by case-insensitive word match, ranked by
 * how many query words an event contains, then by recency.
 */
export class InMemoryMemoryService extends BaseMemoryService {
  /** JSON [app, user] → session id → remembered events of that session. */
  private readonly memories = new Map<string, Map<string, Remembered[]>>();

  override async addSessionToMemory(session: Session): Promise<void> {
    const remembered: Remembered[] = [];
    for (const event of session.events) {
      const text = getTextOf(event.content);
      if (!event.content || text.trim() === "") continue;
      const entry: MemoryEntry = {
        content: structuredClone(event.content),
        author: event.author,
        timestamp: new Date(event.timestamp * 1000).toISOString(),
        id: event.id,
      };
      remembered.push({ entry, timestamp: event.timestamp, words: new Set(wordsOf(text)) });
    }
    const key = JSON.stringify([session.appName, session.userId]);
    let bySession = this.memories.get(key);
    if (!bySession) this.memories.set(key, (bySession = new Map()));
    // Re-ingesting a session replaces what was remembered of it.
    bySession.set(session.id, remembered);
  }

  override async searchMemory({ appName, userId, query }: SearchMemoryRequest): Promise<SearchMemoryResponse> {
    const queryWords = [...new Set(wordsOf(query))];
    const bySession = this.memories.get(JSON.stringify([appName, userId]));
    if (queryWords.length === 0 || !bySession) return { memories: [] };
    const hits: { item: Remembered; score: number }[] = [];
    for (const items of bySession.values()) {
      for (const item of items) {
        const score = queryWords.filter((w) => item.words.has(w)).length;
        if (score > 0) hits.push({ item, score });
      }
    }
    hits.sort((a, b) => b.score - a.score || b.item.timestamp - a.item.timestamp);
    return { memories: hits.map((h) => structuredClone(h.item.entry)) };
  }
}
