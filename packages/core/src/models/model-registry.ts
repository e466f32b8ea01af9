import { ConfigurationError } from "../errors/agentkit-error.js";
import type { BaseLlm } from "./base-llm.js";

/** Builds a model for a name that matched a pattern. */
export type ModelFactory = (name: string) => BaseLlm;

/** Options of one registration. */
export interface ModelRegistrationOptions {
  /**
   * The other model names a name of this pattern is made of (e.g. the models of a failover
   * name); `has` is true only when they are known too. Throwing means the name is malformed.
   */
  dependencies?: (name: string) => string[];
}

interface Entry {
  pattern: RegExp;
  factory: ModelFactory;
  dependencies?: (name: string) => string[];
}

/**
 * Maps model names to factories. An instance, not a global: runners and apps carry one, and
 * nothing registers itself at import time. Later registrations take precedence.
 */
export class ModelRegistry {
  private readonly entries: Entry[] = [];
  private readonly cache = new Map<string, BaseLlm>();
  /** Every model built, so `close` reaches those dropped from the cache by a later `register`. */
  private readonly created = new Set<BaseLlm>();

  /** Adds a pattern; it wins over earlier ones that match the same name. */
  register(pattern: RegExp | string, factory: ModelFactory, options: ModelRegistrationOptions = {}): this {
    const regex = typeof pattern === "string" ? new RegExp(`^${pattern}$`) : pattern;
    this.entries.unshift({
      pattern: regex,
      factory,
      ...(options.dependencies ? { dependencies: options.dependencies } : {}),
    });
    this.cache.clear();
    return this;
  }

  /** True when some pattern matches the name (and the names it is made of, see `dependencies`). */
  has(name: string): boolean {
    return this.known(name, new Set());
  }

  /** The registered patterns, most recent first. */
  patterns(): RegExp[] {
    return this.entries.map((e) => e.pattern);
  }

  /** The model for a name (one instance per name). Unknown names throw `ConfigurationError`. */
  resolve(name: string): BaseLlm {
    const cached = this.cache.get(name);
    if (cached) return cached;
    const entry = this.entries.find((e) => testPattern(e.pattern, name));
    if (!entry) {
      const known = this.entries.length
        ? this.entries.map((e) => e.pattern.toString()).join(", ")
        : "(none registered)";
      throw new ConfigurationError(
        `No model is registered for "${name}". Known patterns: ${known}. Register one with ` +
          `modelRegistry.register(pattern, factory) or pass a BaseLlm instance as the agent's model.`,
      );
    }
    const model = entry.factory(name);
    this.cache.set(name, model);
    this.created.add(model);
    return model;
  }

  private known(name: string, seen: ReadonlySet<string>): boolean {
    const entry = this.entries.find((e) => testPattern(e.pattern, name));
    if (!entry) return false;
    if (!entry.dependencies) return true;
    if (seen.has(name)) return false; // a name made of itself never resolves
    let parts: string[];
    try {
      parts = entry.dependencies(name);
    } catch {
      return false;
    }
    const inside = new Set([...seen, name]);
    return parts.every((part) => this.known(part, inside));
  }

  /** Closes every model this registry created. */
  async close(): Promise<void> {
    const models = [...this.created];
    this.created.clear();
    this.cache.clear();
    await Promise.allSettled(models.map((m) => m.close()));
  }
}

function testPattern(pattern: RegExp, name: string): boolean {
  pattern.lastIndex = 0;
  return pattern.test(name);
}
