import type { InvocationContext } from "../context/invocation-context.js";
import type { LlmAgent } from "../agents/llm-agent.js";
import { ReadonlyContext } from "../context/readonly-context.js";
import type { Content, Part } from "../content/content.js";
import { ConfigurationError } from "../errors/agentkit-error.js";
import { appendInstructions, type LlmRequest } from "../models/llm-request.js";
import { APP_PREFIX, TEMP_PREFIX, USER_PREFIX } from "../sessions/state.js";
import { isLlmAgent } from "./llm-agent-kind.js";

const PLACEHOLDER = /\{+[^{}]*\}+/g;
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
const STATE_PREFIXES: string[] = [APP_PREFIX, USER_PREFIX, TEMP_PREFIX];

/** A state key `{...}` may name: an identifier, optionally after `app:`, `user:` or `temp:`. */
export function isValidStateName(name: string): boolean {
  const parts = name.split(":");
  if (parts.length === 1) return IDENTIFIER.test(name);
  if (parts.length === 2) return STATE_PREFIXES.includes(`${parts[0]}:`) && IDENTIFIER.test(parts[1]!);
  return false;
}

/**
 * Fills `{key}` placeholders from session state and `{artifact.name}` from the artifact
 * service (ADK's `inject_session_state`). `{key?}` is optional: missing means empty. A
 * missing required key throws `ConfigurationError`. Anything else in braces (JSON examples,
 * `{not a key}`) stays literal.
 */
export async function injectSessionState(template: string, ctx: InvocationContext): Promise<string> {
  if (!template.includes("{")) return template; // no placeholder possible: skip the scan
  const matches = [...template.matchAll(PLACEHOLDER)];
  if (matches.length === 0) return template;
  let out = "";
  let last = 0;
  for (const match of matches) {
    out += template.slice(last, match.index);
    out += await replacement(match[0], ctx);
    last = match.index + match[0].length;
  }
  return out + template.slice(last);
}

async function replacement(raw: string, ctx: InvocationContext): Promise<string> {
  let name = raw.replace(/^\{+/, "").replace(/\}+$/, "").trim();
  let optional = false;
  if (name.endsWith("?")) {
    optional = true;
    name = name.slice(0, -1);
  }
  if (name.startsWith("artifact.")) {
    const filename = name.slice("artifact.".length);
    const service = ctx.artifactService;
    if (!service) {
      throw new ConfigurationError(
        `The instruction uses {artifact.${filename}} but no artifact service is configured: pass artifactService to ` +
          `the Runner.`,
      );
    }
    const part = await service.loadArtifact({
      appName: ctx.appName,
      userId: ctx.userId,
      sessionId: ctx.session.id,
      filename,
    });
    if (!part) {
      if (optional) return "";
      throw new ConfigurationError(
        `The instruction uses {artifact.${filename}} but the artifact "${filename}" does not exist. Save it first or ` +
          `write {artifact.${filename}?}.`,
      );
    }
    return artifactText(part);
  }
  if (!isValidStateName(name)) return raw;
  const state = ctx.session.state;
  // Own keys only: `{constructor}` is a missing key, not Object's constructor.
  if (Object.hasOwn(state, name)) {
    const value = state[name];
    if (value === undefined || value === null) return "";
    return typeof value === "string" ? value : typeof value === "object" ? JSON.stringify(value) : String(value);
  }
  if (optional) return "";
  throw new ConfigurationError(
    `The instruction uses {${name}} but the session state has no key "${name}". Set it first (e.g. in the session's ` +
      `initial state) or write {${name}?} to make it optional.`,
  );
}

function artifactText(part: Part): string {
  if (typeof part.text === "string") return part.text;
  const inline = part.inlineData;
  if (inline?.data && /^(text\/|application\/(json|xml|yaml))/.test(inline.mimeType ?? "")) {
    return Buffer.from(inline.data, "base64").toString("utf8");
  }
  return JSON.stringify(part);
}

/** The identity line every LlmAgent's request carries. */
export function identityInstruction(agent: LlmAgent): string {
  let line = `You are an agent. Your internal name is "${agent.name}".`;
  if (agent.description) line += ` The description about you is "${agent.description}".`;
  return line;
}

/**
 * Adds the root agent's global instruction, the static instruction and the agent's
 * instruction. With a static instruction, the (dynamic) instruction becomes a user content
 * returned for insertion into the contents, as ADK does to keep the system prompt cacheable.
 * Synchronous when nothing needs awaiting (no global instruction, the agent's instruction a
 * string without placeholders read through `LlmAgent`'s own `canonicalInstruction`): each model
 * call builds a request, and an async step costs promises and microtask turns even when it has
 * nothing to wait for.
 */
export function applyInstructions(
  ctx: InvocationContext,
  agent: LlmAgent,
  request: LlmRequest,
): Content[] | Promise<Content[]> {
  const root = agent.rootAgent;
  const global = isLlmAgent(root) && root.globalInstruction ? root : undefined;
  const plain = agent.instruction ? plainInstruction(agent) : undefined;
  if (global === undefined && (!agent.instruction || plain !== undefined))
    return appendAgentInstructions(agent, request, plain);
  return applyInstructionsAwaiting(ctx, agent, request, global);
}

async function applyInstructionsAwaiting(
  ctx: InvocationContext,
  agent: LlmAgent,
  request: LlmRequest,
  global: LlmAgent | undefined,
): Promise<Content[]> {
  const readonly = new ReadonlyContext(ctx);
  if (global) {
    const { instruction, bypassStateInjection } = await global.canonicalGlobalInstruction(readonly);
    appendInstructions(request, [bypassStateInjection ? instruction : await injectSessionState(instruction, ctx)]);
  }
  let text: string | undefined;
  if (agent.instruction) {
    const { instruction, bypassStateInjection } = await agent.canonicalInstruction(readonly);
    // Without a brace there is nothing to fill in: no call and no await (a promise and a turn).
    text =
      bypassStateInjection || !instruction.includes("{") ? instruction : await injectSessionState(instruction, ctx);
  }
  return appendAgentInstructions(agent, request, text);
}

/** After the global one: the static instruction, the agent's (`text`, resolved) and the identity line. */
function appendAgentInstructions(agent: LlmAgent, request: LlmRequest, text: string | undefined): Content[] {
  if (agent.staticInstruction !== undefined) {
    const staticText =
      typeof agent.staticInstruction === "string"
        ? agent.staticInstruction
        : (agent.staticInstruction.parts ?? []).map((p) => p.text ?? "").join("");
    appendInstructions(request, [staticText]);
  }
  const extraContents: Content[] = [];
  if (text !== undefined) {
    if (agent.staticInstruction === undefined) appendInstructions(request, [text]);
    else if (text) extraContents.push({ role: "user", parts: [{ text }] });
  }
  appendInstructions(request, [identityInstruction(agent)]);
  return extraContents;
}

/**
 * The agent's instruction as the request gets it when that needs no await: a string without a
 * placeholder, read through `LlmAgent`'s own `canonicalInstruction` (a subclass that overrides it
 * is always awaited). Else undefined.
 */
function plainInstruction(agent: LlmAgent): string | undefined {
  const instruction = agent.instruction;
  if (typeof instruction !== "string" || instruction.includes("{")) return undefined;
  return hasBaseCanonicalInstruction(agent) ? instruction : undefined;
}

/** Per prototype: whether `canonicalInstruction` is the one `LlmAgent` defines (not overridden). */
const baseCanonicalByPrototype = new WeakMap<object, boolean>();

/**
 * True when the agent's `canonicalInstruction` comes from the farthest class in its prototype chain
 * that defines it (`LlmAgent`), i.e. no subclass and no instance property overrides it. Without a
 * runtime import of `LlmAgent` (see `llm-agent-kind.ts`).
 */
function hasBaseCanonicalInstruction(agent: LlmAgent): boolean {
  const method = "canonicalInstruction";
  if (Object.hasOwn(agent, method)) return false;
  const prototype = Object.getPrototypeOf(agent) as object;
  let known = baseCanonicalByPrototype.get(prototype);
  if (known === undefined) {
    let nearest: object | undefined;
    let farthest: object | undefined;
    for (let p: object | null = prototype; p && p !== Object.prototype; p = Object.getPrototypeOf(p) as object | null) {
      if (Object.hasOwn(p, method)) {
        nearest ??= p;
        farthest = p;
      }
    }
    known = nearest !== undefined && nearest === farthest;
    baseCanonicalByPrototype.set(prototype, known);
  }
  return known;
}
