import { getFunctionCalls, getFunctionResponses, type Event } from "@agentkit/core";

/**
 * The graph highlights of an event: author → tool for each function call, tool → author for
 * each function response, the author alone otherwise (http-api.md 4.9).
 */
export function highlightPairsForEvent(event: Event): [string, string][] {
  const calls = getFunctionCalls(event).flatMap((c): [string, string][] => (c.name ? [[event.author, c.name]] : []));
  const responses = getFunctionResponses(event).flatMap((r): [string, string][] =>
    r.name ? [[r.name, event.author]] : [],
  );
  const pairs = [...calls, ...responses];
  return pairs.length > 0 ? pairs : [[event.author, event.author]];
}
