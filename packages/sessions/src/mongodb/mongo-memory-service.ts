import {
  BaseMemoryService,
  getTextOf,
  SessionError,
  type Content,
  type MemoryEntry,
  type SearchMemoryRequest,
  type SearchMemoryResponse,
  type Session,
} from "@agentkit/core";
import type { Collection } from "mongodb";
import { MEMORY_COLLECTION } from "./collection-names.js";
import { decodeKeys, encodeKeys, toJsonValue } from "./field-names.js";
import { MongoHandle, storeError, type MongoConnectionOptions } from "./mongo-connection.js";
import { applyMigrations, type MongoMigration } from "./mongo-schema.js";

export type MongoMemoryServiceOptions = MongoConnectionOptions;

/** One remembered text event. `words` (lower-cased, unique) carries the multikey search index. */
interface MemoryDoc {
  appName: string;
  userId: string;
  sessionId: string;
  eventId: string;
  author: string;
  timestamp: number;
  content: Record<string, unknown>;
  words: string[];
}

const MEMORY_MIGRATIONS: readonly MongoMigration[] = [
  {
    version: 1,
    description: "remembered events searchable by word per app and user",
    async up(db) {
      const memory = db.collection(MEMORY_COLLECTION);
      await memory.createIndex({ appName: 1, userId: 1, words: 1 }, { name: "memory_words" });
      await memory.createIndex({ appName: 1, userId: 1, sessionId: 1 }, { name: "memory_session" });
    },
  },
];

/** Lower-cased words (letters and digits) of a text, as InMemoryMemoryService splits them. */
function wordsOf(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/**
 * Keyword memory in MongoDB: `addSessionToMemory` stores a session's text events (replacing
 * what was stored for that session), `searchMemory` finds them by word through a multikey
 * index and ranks by matched words, then recency, per app and user.
 */
export class MongoMemoryService extends BaseMemoryService {
  private readonly handle: MongoHandle;

  constructor(options: MongoMemoryServiceOptions) {
    super();
    this.handle = new MongoHandle(options, "MongoMemoryService", async (db) => {
      await applyMigrations(db, "memory", MEMORY_MIGRATIONS);
    });
  }

  static fromUri(uri: string): MongoMemoryService {
    return new MongoMemoryService({ uri });
  }

  private async memory(): Promise<Collection<MemoryDoc>> {
    return (await this.handle.db()).collection<MemoryDoc>(MEMORY_COLLECTION);
  }

  override async addSessionToMemory(session: Session): Promise<void> {
    const docs: MemoryDoc[] = [];
    for (const event of session.events) {
      const text = getTextOf(event.content);
      if (!event.content || text.trim() === "") continue;
      docs.push({
        appName: session.appName,
        userId: session.userId,
        sessionId: session.id,
        eventId: event.id,
        author: event.author,
        timestamp: event.timestamp,
        content: encodeKeys(toJsonValue(event.content)) as Record<string, unknown>,
        words: [...new Set(wordsOf(text))],
      });
    }
    try {
      const memory = await this.memory();
      // Re-ingesting a session replaces what was remembered of it.
      await memory.deleteMany({ appName: session.appName, userId: session.userId, sessionId: session.id });
      if (docs.length > 0) await memory.insertMany(docs, { ordered: true });
    } catch (error) {
      if (error instanceof SessionError) throw error;
      throw storeError("addSessionToMemory", error);
    }
  }

  override async searchMemory({ appName, userId, query }: SearchMemoryRequest): Promise<SearchMemoryResponse> {
    const queryWords = [...new Set(wordsOf(query))];
    if (queryWords.length === 0) return { memories: [] };
    let docs: MemoryDoc[];
    try {
      docs = await (await this.memory()).find({ appName, userId, words: { $in: queryWords } }).toArray();
    } catch (error) {
      if (error instanceof SessionError) throw error;
      throw storeError("searchMemory", error);
    }
    const hits = docs.map((doc) => ({ doc, score: queryWords.filter((w) => doc.words.includes(w)).length }));
    hits.sort((a, b) => b.score - a.score || b.doc.timestamp - a.doc.timestamp);
    return {
      memories: hits.map(
        ({ doc }): MemoryEntry => ({
          content: decodeKeys(doc.content) as Content,
          author: doc.author,
          timestamp: new Date(doc.timestamp * 1000).toISOString(),
          id: doc.eventId,
        }),
      ),
    };
  }

  override async close(): Promise<void> {
    await this.handle.close();
  }
}
