import { BasePlugin, ConfigurationError, type Content, type BeforeModelHookArgs } from "@agentkit/core";

/** A custom filter over the request's contents (oldest first). */
export type ContentsFilter = (contents: Content[]) => Content[] | Promise<Content[]>;

export interface ContextFilterPluginOptions {
  /** Keep only the contents of the last N invocations (user turns and what followed them). */
  numInvocationsToKeep?: number;
  /** Applied after `numInvocationsToKeep`. */
  filter?: ContentsFilter;
  /** Plugin name (default `context_filter`). */
  name?: string;
}

/**
 * Trims the history sent to the model, keeping prompt size bounded in long sessions. The
 * session itself is untouched. Whatever the filter keeps, a function call is never separated
 * from its response: an orphaned response (its call cut) or an answered call whose response
 * was cut is dropped, because providers reject unpaired tool messages.
 */
export class ContextFilterPlugin extends BasePlugin {
  private readonly keep?: number;
  private readonly filter?: ContentsFilter;

  constructor(options: ContextFilterPluginOptions = {}) {
    super(options.name ?? "context_filter");
    const n = options.numInvocationsToKeep;
    if (n !== undefined && (!Number.isInteger(n) || n < 1)) {
      throw new ConfigurationError(
        `ContextFilterPlugin: numInvocationsToKeep must be an integer of at least 1, got ${String(n)}.`,
      );
    }
    if (n === undefined && !options.filter) {
      throw new ConfigurationError("ContextFilterPlugin needs numInvocationsToKeep, a filter, or both.");
    }
    this.keep = n;
    this.filter = options.filter;
  }

  /**
   * It puts a filtered array of its own in the request and never edits the one it is handed: the
   * flow may hand it the session's shared history instead of a copy, so with
   * `numInvocationsToKeep` a model call costs the turns kept, not the whole history.
   */
  override get readsContentsOnly(): boolean {
    return true;
  }

  override async beforeModelCallback({ request }: BeforeModelHookArgs): Promise<undefined> {
    request.contents = await filterContents(request.contents, this.keep, this.filter);
    return undefined;
  }
}

/** The filtering of `ContextFilterPlugin`, exported for tests and custom plugins. */
export async function filterContents(
  contents: Content[],
  keep: number | undefined,
  filter: ContentsFilter | undefined,
): Promise<Content[]> {
  let kept = contents;
  if (keep !== undefined) {
    // From the end, so a long session costs the turns kept: the keep-th user turn from the end
    // starts the slice, when an earlier one exists (else everything is kept).
    const start = userTurnBefore(contents, contents.length, keep);
    if (start > 0 && userTurnBefore(contents, start, 1) >= 0) kept = contents.slice(start);
  }
  if (filter) {
    const filtered = await filter([...kept]);
    if (!Array.isArray(filtered))
      throw new ConfigurationError("ContextFilterPlugin: the filter must return an array of contents.");
    kept = filtered;
  }
  return keepCallsPaired(kept);
}

/** The index of the n-th user turn counting back from `end` (exclusive), or -1 when there are fewer. */
function userTurnBefore(contents: readonly Content[], end: number, n: number): number {
  let found = 0;
  for (let i = end - 1; i >= 0; i--) if (isUserTurn(contents[i]!) && ++found === n) return i;
  return -1;
}

/** A turn the user typed (not a function response travelling with role "user"). */
function isUserTurn(content: Content): boolean {
  const parts = content.parts ?? [];
  return content.role === "user" && parts.length > 0 && !parts.some((p) => p.functionResponse);
}

function keepCallsPaired(contents: Content[]): Content[] {
  const callKeys = new Set<string>();
  const responseKeys = new Set<string>();
  for (const content of contents) {
    for (const part of content.parts ?? []) {
      if (part.functionCall) callKeys.add(pairKey(part.functionCall.id, part.functionCall.name));
      if (part.functionResponse) responseKeys.add(pairKey(part.functionResponse.id, part.functionResponse.name));
    }
  }
  const lastIndex = contents.length - 1;
  const out: Content[] = [];
  contents.forEach((content, index) => {
    const parts = (content.parts ?? []).filter((part) => {
      if (part.functionResponse) return callKeys.has(pairKey(part.functionResponse.id, part.functionResponse.name));
      // An unanswered call is legitimate only at the very end (the model is waiting for it).
      if (part.functionCall)
        return responseKeys.has(pairKey(part.functionCall.id, part.functionCall.name)) || index === lastIndex;
      return true;
    });
    if (parts.length > 0) out.push(parts.length === (content.parts ?? []).length ? content : { ...content, parts });
  });
  return out;
}

function pairKey(id: string | undefined, name: string | undefined): string {
  return id ? `id:${id}` : `name:${name ?? ""}`;
}
