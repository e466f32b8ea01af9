import { createHash } from "node:crypto";
import type { CachedContent, GenerateContentParameters, GoogleGenAI, Tool } from "@google/genai";
import type { ContextCacheConfig, LlmRequest, UsageMetadata } from "@agentkit/core";
import { withoutCachedFields } from "./request-conversion.js";

export const DEFAULT_CACHE_INTERVALS = 10;
export const DEFAULT_CACHE_TTL_SECONDS = 1800;
/** A cache this close to expiry is not reused (the request could outlive it). */
const EXPIRY_MARGIN_MS = 5_000;
/** How many conversations' cache states one model remembers. */
const MAX_REMEMBERED = 64;
/**
 * How long deleting a cache may take (the replaced one, in the background; the live ones on
 * `close`) unless the model's `timeoutMs` is shorter. Past it the delete is given up: the cache
 * expires at its TTL anyway.
 */
export const DEFAULT_CACHE_DELETE_TIMEOUT_MS = 10_000;

/** What a response tells the next request about the context cache (`LlmResponse.cacheMetadata`). */
export interface GeminiCacheMetadata {
  /** `cachedContents/…` when a cache is active. */
  cacheName?: string;
  /** Expiry as epoch milliseconds. */
  expireTime?: number;
  /** Hash of model, system instruction, tools, tool config and the cached contents. */
  fingerprint: string;
  /** How many leading contents the cache holds. */
  contentsCount: number;
  /** Requests served with this cache so far (refreshed at `cacheIntervals`). */
  invocationsUsed: number;
  createdAt?: number;
  /** Prompt tokens of the last request (the next cache decision's size estimate). */
  promptTokenCount?: number;
  /** Why the last cache creation failed (the request then ran uncached). */
  lastError?: string;
}

export interface PreparedRequest {
  params: GenerateContentParameters;
  metadata?: GeminiCacheMetadata;
}

/**
 * Context caching per `LlmRequest.cacheConfig`: once a conversation has a cacheable prefix
 * (every content before the newest one) of at least `minTokens`, the prefix, system
 * instruction and tools go into a `cachedContents` resource with `ttlSeconds`; later requests
 * name it in `cachedContent` and send only the uncached tail. A cache is replaced when its
 * prefix no longer matches, it expired, or it served `cacheIntervals` requests. State comes
 * from `request.cacheMetadata` (a previous response's) or, when the caller does not pass it
 * back, from what this model remembers for the same model, instruction and tools.
 */
export class GeminiContextCache {
  /** Cache states by cache name, each with the key of its model, instruction and tools. */
  private readonly remembered = new Map<string, { key: string; metadata: GeminiCacheMetadata }>();
  /** Caches this model made and has not deleted, by name, with their expiry (epoch ms); `close` deletes the live ones. */
  private readonly created = new Map<string, number>();
  /** Deletes of replaced caches still under way (`close` waits for them). */
  private readonly deleting = new Set<Promise<void>>();

  /** `deleteTimeoutMs`: the bound of each delete request (and of `close`). */
  constructor(
    private readonly client: () => GoogleGenAI,
    private readonly now: () => number = Date.now,
    private readonly deleteTimeoutMs: number = DEFAULT_CACHE_DELETE_TIMEOUT_MS,
  ) {}

  /** `ignorePrior`: start over (the cache the state names turned out to be gone). */
  async prepare(
    request: LlmRequest,
    params: GenerateContentParameters,
    signal?: AbortSignal,
    ignorePrior = false,
  ): Promise<PreparedRequest> {
    const config = request.cacheConfig;
    if (!config) return { params };
    const contents = Array.isArray(params.contents) ? (params.contents as unknown[]) : [];
    const prior = ignorePrior ? undefined : (readMetadata(request.cacheMetadata) ?? this.recall(params));

    if (prior?.cacheName) {
      if (this.isReusable(prior, params, contents, config)) {
        return {
          params: useCache(params, prior.cacheName, prior.contentsCount),
          metadata: { ...prior, invocationsUsed: prior.invocationsUsed + 1 },
        };
      }
      // The request does not wait for it: a service slow to answer (or never answering) the
      // delete must not hold the model call.
      this.deleteInBackground(prior.cacheName);
    }

    const count = contents.length - 1;
    const fingerprint = fingerprintOf(params, Math.max(count, 0));
    if (count < 1) return { params, metadata: { fingerprint, contentsCount: 0, invocationsUsed: 0 } };
    const estimate = request.cacheableContentsTokenCount ?? prior?.promptTokenCount ?? estimateTokens(params, count);
    if (estimate < (config.minTokens ?? 0))
      return { params, metadata: { fingerprint, contentsCount: 0, invocationsUsed: 0 } };

    const ttlSeconds = config.ttlSeconds ?? DEFAULT_CACHE_TTL_SECONDS;
    const cfg = params.config ?? {};
    let cache: CachedContent;
    try {
      cache = await this.client().caches.create({
        model: params.model,
        config: {
          contents: contents.slice(0, count) as never,
          ...(cfg.systemInstruction ? { systemInstruction: cfg.systemInstruction } : {}),
          ...(cfg.tools ? { tools: cfg.tools as Tool[] } : {}),
          ...(cfg.toolConfig ? { toolConfig: cfg.toolConfig } : {}),
          ttl: `${ttlSeconds}s`,
          displayName: `agentkit-${fingerprint.slice(0, 12)}`,
          ...(signal ? { abortSignal: signal } : {}),
        },
      });
    } catch (error) {
      if (signal?.aborted) throw error;
      // Caching is an optimisation: the request still runs, uncached.
      return {
        params,
        metadata: {
          fingerprint,
          contentsCount: 0,
          invocationsUsed: 0,
          lastError: error instanceof Error ? error.message : String(error),
        },
      };
    }
    if (!cache.name)
      return {
        params,
        metadata: {
          fingerprint,
          contentsCount: 0,
          invocationsUsed: 0,
          lastError: "cachedContents.create returned no name",
        },
      };
    const createdAt = this.now();
    const parsedExpiry = cache.expireTime ? Date.parse(cache.expireTime) : Number.NaN;
    const expireTime = Number.isFinite(parsedExpiry) ? parsedExpiry : createdAt + ttlSeconds * 1000;
    this.dropExpired(createdAt);
    this.created.set(cache.name, expireTime);
    return {
      params: useCache(params, cache.name, count),
      metadata: {
        cacheName: cache.name,
        expireTime,
        fingerprint,
        contentsCount: count,
        invocationsUsed: 1,
        createdAt,
      },
    };
  }

  /** Records the outcome of a request and returns the metadata for its response. */
  finish(
    params: GenerateContentParameters,
    metadata: GeminiCacheMetadata,
    usage: UsageMetadata | undefined,
  ): GeminiCacheMetadata {
    const result = {
      ...metadata,
      ...(usage?.promptTokenCount !== undefined ? { promptTokenCount: usage.promptTokenCount } : {}),
    };
    // Only states with a cache are worth recalling; without one the next request decides afresh.
    if (!result.cacheName) return result;
    const id = result.cacheName;
    this.remembered.delete(id);
    this.remembered.set(id, { key: baseKey(params), metadata: result });
    if (this.remembered.size > MAX_REMEMBERED) this.remembered.delete(this.remembered.keys().next().value!);
    return result;
  }

  /** Drops what is known about a cache the service no longer has. */
  forget(name: string): void {
    this.remembered.delete(name);
    this.created.delete(name);
  }

  /**
   * Deletes the caches this model created that are still alive and waits for the deletes of
   * replaced ones (best effort, at most `deleteTimeoutMs`: a service that does not answer cannot
   * hold it).
   */
  async close(): Promise<void> {
    this.dropExpired(this.now());
    const names = [...this.created.keys()];
    this.remembered.clear();
    const all = Promise.all([...this.deleting, ...names.map((name) => this.delete(name))]);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const bound = new Promise<void>((resolve) => (timer = setTimeout(resolve, this.deleteTimeoutMs)));
    try {
      await Promise.race([all, bound]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Forgets the caches that expired: the service dropped them, so there is nothing to delete.
   * A conversation that ends leaves its cache here until then, so what is kept is bounded by
   * the caches made within one TTL, not by every conversation the process ever had.
   */
  private dropExpired(now: number): void {
    for (const [name, expireTime] of this.created) if (expireTime <= now) this.created.delete(name);
  }

  /**
   * The remembered state of this conversation: same model, instruction and tools, and a cached
   * prefix that the request's contents still start with (the longest such). States of other
   * conversations of the same agent are left alone.
   */
  private recall(params: GenerateContentParameters): GeminiCacheMetadata | undefined {
    const key = baseKey(params);
    let best: GeminiCacheMetadata | undefined;
    for (const { key: k, metadata } of this.remembered.values()) {
      if (k !== key || !metadata.cacheName) continue;
      if (fingerprintOf(params, metadata.contentsCount) !== metadata.fingerprint) continue;
      if (!best || metadata.contentsCount > best.contentsCount) best = metadata;
    }
    return best;
  }

  private isReusable(
    prior: GeminiCacheMetadata,
    params: GenerateContentParameters,
    contents: unknown[],
    config: ContextCacheConfig,
  ): boolean {
    if (prior.contentsCount < 1 || prior.contentsCount >= contents.length) return false;
    if (prior.invocationsUsed >= (config.cacheIntervals ?? DEFAULT_CACHE_INTERVALS)) return false;
    if (prior.expireTime === undefined || prior.expireTime - EXPIRY_MARGIN_MS <= this.now()) return false;
    return fingerprintOf(params, prior.contentsCount) === prior.fingerprint;
  }

  private deleteInBackground(name: string): void {
    const pending: Promise<void> = this.delete(name).finally(() => this.deleting.delete(pending));
    this.deleting.add(pending);
  }

  /** Never rejects; gives up after `deleteTimeoutMs`. */
  private async delete(name: string): Promise<void> {
    this.forget(name);
    try {
      await this.client().caches.delete({ name, config: { abortSignal: AbortSignal.timeout(this.deleteTimeoutMs) } });
    } catch {
      // Already expired or deleted (nothing to release), or no answer in time (it expires at its TTL).
    }
  }
}

function useCache(params: GenerateContentParameters, name: string, count: number): GenerateContentParameters {
  const contents = Array.isArray(params.contents) ? (params.contents as unknown[]).slice(count) : params.contents;
  return {
    ...params,
    contents: contents as GenerateContentParameters["contents"],
    config: { ...withoutCachedFields(params.config ?? {}), cachedContent: name },
  };
}

function baseKey(params: GenerateContentParameters): string {
  const cfg = params.config ?? {};
  return hash({
    model: params.model,
    systemInstruction: cfg.systemInstruction,
    tools: cfg.tools,
    toolConfig: cfg.toolConfig,
  });
}

function fingerprintOf(params: GenerateContentParameters, count: number): string {
  const cfg = params.config ?? {};
  const contents = Array.isArray(params.contents) ? (params.contents as unknown[]).slice(0, count) : [];
  return hash({
    model: params.model,
    systemInstruction: cfg.systemInstruction,
    tools: cfg.tools,
    toolConfig: cfg.toolConfig,
    contents,
  });
}

/** A rough size (4 characters a token) when no token count is known yet. */
function estimateTokens(params: GenerateContentParameters, count: number): number {
  const cfg = params.config ?? {};
  const contents = Array.isArray(params.contents) ? (params.contents as unknown[]).slice(0, count) : [];
  return Math.ceil(JSON.stringify([cfg.systemInstruction ?? "", cfg.tools ?? [], contents]).length / 4);
}

function hash(value: unknown): string {
  return createHash("sha256")
    .update(JSON.stringify(value) ?? "")
    .digest("hex");
}

function readMetadata(value: Record<string, unknown> | undefined): GeminiCacheMetadata | undefined {
  if (!value || typeof value.fingerprint !== "string" || typeof value.contentsCount !== "number") return undefined;
  return value as unknown as GeminiCacheMetadata;
}
