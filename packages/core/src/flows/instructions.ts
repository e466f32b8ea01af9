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
 */
export async function applyInstructions(
  ctx: InvocationContext,
  agent: LlmAgent,
  request: LlmRequest,
): Promise<Content[]> {
  const readonly = new ReadonlyContext(ctx);
  const root = agent.rootAgent;
  if (isLlmAgent(root) && root.globalInstruction) {
    const { instruction, bypassStateInjection } = await root.canonicalGlobalInstruction(readonly);
    appendInstructions(request, [bypassStateInjection ? instruction : await injectSessionState(instruction, ctx)]);
  }
  if (agent.staticInstruction !== undefined) {
    const text =
      typeof agent.staticInstruction === "string"
        ? agent.staticInstruction
        : (agent.staticInstruction.parts ?? []).map((p) => p.text ?? "").join("");
    appendInstructions(request, [text]);
  }
  const extraContents: Content[] = [];
  if (agent.instruction) {
    const { instruction, bypassStateInjection } = await agent.canonicalInstruction(readonly);
    // Without a brace there is nothing to fill in: no call and no await (a promise and a turn).
    const text =
      bypassStateInjection || !instruction.includes("{") ? instruction : await injectSessionState(instruction, ctx);
    if (agent.staticInstruction === undefined) appendInstructions(request, [text]);
    else if (text) extraContents.push({ role: "user", parts: [{ text }] });
  }
  appendInstructions(request, [identityInstruction(agent)]);
  return extraContents;
}
