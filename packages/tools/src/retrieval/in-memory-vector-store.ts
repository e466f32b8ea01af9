import { ConfigurationError } from "@agentkit/core";

export type Metadata = Record<string, string | number | boolean>;

export interface VectorRecord {
  id: string;
  text: string;
  vector: number[];
  metadata: Metadata;
}

export interface VectorMatch {
  id: string;
  text: string;
  metadata: Metadata;
  /** Cosine similarity in [-1, 1]. */
  score: number;
}

export interface VectorSearchOptions {
  topK?: number;
  /** Only records whose metadata has exactly these values. */
  filter?: Metadata;
  /** Drop matches scoring below this. */
  minScore?: number;
}

/** Where vectors live; `InMemoryVectorStore` is the built-in one. */
export interface VectorStore {
  upsert(records: VectorRecord[]): Promise<void>;
  search(vector: number[], options?: VectorSearchOptions): Promise<VectorMatch[]>;
  delete(ids: string[]): Promise<void>;
  size(): Promise<number>;
}

/** A brute-force cosine-similarity store in process memory (fine for thousands of chunks). */
export class InMemoryVectorStore implements VectorStore {
  private readonly records = new Map<string, VectorRecord & { norm: number }>();
  private dimension?: number;

  async upsert(records: VectorRecord[]): Promise<void> {
    for (const record of records) {
      this.checkVector(record.vector, `record ${record.id}`);
      this.records.set(record.id, {
        ...record,
        vector: [...record.vector],
        metadata: { ...record.metadata },
        norm: norm(record.vector),
      });
    }
  }

  async search(vector: number[], { topK = 5, filter, minScore }: VectorSearchOptions = {}): Promise<VectorMatch[]> {
    if (!Number.isInteger(topK) || topK <= 0)
      throw new ConfigurationError(`topK must be a positive integer; got ${topK}.`);
    if (this.records.size === 0) return [];
    this.checkVector(vector, "query");
    const queryNorm = norm(vector);
    const matches: VectorMatch[] = [];
    for (const r of this.records.values()) {
      if (filter && !Object.entries(filter).every(([k, v]) => r.metadata[k] === v)) continue;
      const denominator = queryNorm * r.norm;
      const score = denominator === 0 ? 0 : dot(vector, r.vector) / denominator;
      if (minScore !== undefined && score < minScore) continue;
      matches.push({ id: r.id, text: r.text, metadata: { ...r.metadata }, score });
    }
    // Ties by id in code-unit order (locale-independent, and what PostgresVectorStore's COLLATE "C" gives).
    return matches.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)).slice(0, topK);
  }

  async delete(ids: string[]): Promise<void> {
    for (const id of ids) this.records.delete(id);
  }

  async size(): Promise<number> {
    return this.records.size;
  }

  private checkVector(vector: number[], label: string): void {
    if (!Array.isArray(vector) || vector.length === 0 || !vector.every(Number.isFinite)) {
      throw new ConfigurationError(`The ${label} vector must be a non-empty array of finite numbers.`);
    }
    this.dimension ??= vector.length;
    if (vector.length !== this.dimension) {
      throw new ConfigurationError(
        `The ${label} vector has ${vector.length} dimensions; this store holds ${this.dimension}-dimensional vectors.`,
      );
    }
  }
}

function dot(a: number[], b: number[]): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!;
  return sum;
}

function norm(v: number[]): number {
  return Math.sqrt(dot(v, v));
}
