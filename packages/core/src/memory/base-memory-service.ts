import type { Content } from "../content/content.js";
import type { Session } from "../sessions/session.js";

/** One remembered piece of a past conversation. */
export interface MemoryEntry {
  content: Content;
  author?: string;
  /** ISO 8601 time of the original event. */
  timestamp?: string;
  id?: string;
  customMetadata?: Record<string, unknown>;
}

export interface SearchMemoryResponse {
  memories: MemoryEntry[];
}

export interface SearchMemoryRequest {
  appName: string;
  userId: string;
  query: string;
}

/** Long-term memory across sessions: ingest finished sessions, search them later. */
export abstract class BaseMemoryService {
  /** Adds a session's events to memory (idempotent per session). */
  abstract addSessionToMemory(session: Session): Promise<void>;
  abstract searchMemory(request: SearchMemoryRequest): Promise<SearchMemoryResponse>;
  async close(): Promise<void> {}
}
