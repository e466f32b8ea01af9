import { readFile } from "node:fs/promises";
import { A2A_PROTOCOL_VERSION, A2A_VERSION_HEADER, AGENT_CARD_PATH, type AgentCard } from "@a2a-js/sdk";
import { DefaultAgentCardResolver } from "@a2a-js/sdk/client";
import { readBodyLimited, ResponseTooLargeError } from "@agentkit/core/internal";
import { AgentCardResolutionError, errorMessageOf } from "../errors.js";

/**
 * Where a card is read from: an `http(s)` URL of the card JSON (a URL whose path does not end
 * in `.json` is taken as the agent's base URL and gets `/.well-known/agent-card.json`), or a
 * local file path (or `file://` URL) of the card JSON.
 */
export function agentCardLocation(source: string): { url?: string; path?: string } {
  if (/^https?:\/\//i.test(source)) {
    const url = new URL(source);
    if (!url.pathname.endsWith(".json")) url.pathname = `${url.pathname.replace(/\/+$/, "")}/${AGENT_CARD_PATH}`;
    return { url: url.toString() };
  }
  if (source.startsWith("file://")) return { path: new URL(source).pathname };
  return { path: source };
}

/** Cards are a few KiB: a larger answer is broken or hostile, and is cancelled rather than read into memory. */
const MAX_AGENT_CARD_BYTES = 1024 * 1024;

/**
 * Fetches (or reads) and normalizes an agent card; every failure is an `AgentCardResolutionError`,
 * a fetched card over `MAX_AGENT_CARD_BYTES` (1 MiB) included.
 */
export async function resolveAgentCard(
  source: string,
  options: { fetch: typeof fetch; signal?: AbortSignal },
): Promise<AgentCard> {
  const location = agentCardLocation(source);
  let raw: unknown;
  try {
    if (location.url) {
      const response = await options.fetch(location.url, {
        headers: { accept: "application/json", [A2A_VERSION_HEADER]: A2A_PROTOCOL_VERSION },
        signal: options.signal,
      });
      if (!response.ok) {
        // An unread body holds its connection until the collector finds it: let it go now.
        await response.body?.cancel().catch(() => undefined);
        throw new AgentCardResolutionError(
          `Fetching the agent card at ${location.url} failed with HTTP ${response.status}.`,
          { source },
        );
      }
      raw = JSON.parse(await readBodyLimited(response, { maxBytes: MAX_AGENT_CARD_BYTES, signal: options.signal }));
    } else {
      raw = JSON.parse(await readFile(location.path!, "utf8"));
    }
  } catch (error) {
    if (error instanceof AgentCardResolutionError) throw error;
    if (error instanceof ResponseTooLargeError) {
      throw new AgentCardResolutionError(`The agent card at ${location.url} exceeded ${error.maxBytes} bytes.`, {
        source,
        cause: error,
      });
    }
    throw new AgentCardResolutionError(`Could not load the agent card from ${source}: ${errorMessageOf(error)}`, {
      source,
      cause: error,
    });
  }
  return normalizeAgentCard(raw, source);
}

/** Normalizes a card object (proto JSON or SDK shape) and checks it can be used. */
export function normalizeAgentCard(raw: unknown, source?: string): AgentCard {
  let card: AgentCard;
  try {
    card = new DefaultAgentCardResolver().normalizeAgentCard(raw);
  } catch (error) {
    throw new AgentCardResolutionError(
      `The agent card${source ? ` from ${source}` : ""} is invalid: ${errorMessageOf(error)}`,
      { source, cause: error },
    );
  }
  if (
    !card ||
    typeof card !== "object" ||
    typeof card.name !== "string" ||
    !Array.isArray(card.supportedInterfaces) ||
    card.supportedInterfaces.length === 0
  ) {
    throw new AgentCardResolutionError(
      `The agent card${source ? ` from ${source}` : ""} is invalid: it needs a name and at least one entry in ` +
        `supportedInterfaces (A2A v1.0).`,
      { source },
    );
  }
  return card;
}
