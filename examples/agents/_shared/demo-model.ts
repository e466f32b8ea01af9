import { BaseLlm, getTextOf, type LlmRequest, type LlmResponse } from "@agentkit/core";

/**
 * An offline stand-in for a real model, so the examples run with no API key and no
 * network. It picks a tool by keyword, then answers from the tool's result; streamed
 * answers come word by word. Swap it for a real model (e.g. "gemini-2.5-flash") in your
 * own agents.
 */
export class DemoModel extends BaseLlm {
  constructor() {
    super({ model: "demo-model" });
  }

  async *generateContentAsync(request: LlmRequest, stream = false): AsyncGenerator<LlmResponse, void, void> {
    const last = request.contents[request.contents.length - 1];
    if (isUserSimulatorPrompt(request)) {
      // Playing the user of an eval scenario: the demo user is satisfied after its starting prompt.
      yield { content: { role: "model", parts: [{ text: USER_SIMULATOR_STOP_SIGNAL }] }, finishReason: "STOP" };
      return;
    }
    const response = last?.parts?.find((p) => p.functionResponse)?.functionResponse;
    const text = response ? `${answerFromTool(response.name ?? "", response.response ?? {})} (demo model)` : undefined;
    if (text === undefined) {
      const call = pickToolCall(getTextOf(last), Object.keys(request.toolsDict));
      if (call) {
        yield { content: { role: "model", parts: [{ functionCall: call }] }, usageMetadata: usage(request, 8) };
        return;
      }
    }
    const answer = text ?? defaultAnswer(getTextOf(last), Object.keys(request.toolsDict));
    if (stream) {
      const words = answer.split(/(?<= )/);
      for (const w of words) yield { content: { role: "model", parts: [{ text: w }] }, partial: true };
    }
    yield {
      content: { role: "model", parts: [{ text: answer }] },
      finishReason: "STOP",
      usageMetadata: usage(request, answer.length / 4),
    };
  }
}

/** ADK's stop signal, which a user simulator's prompt asks for when the conversation is done. */
const USER_SIMULATOR_STOP_SIGNAL = "</finished>";

/** A request from an eval's user simulator: no tools, and a prompt naming the stop signal. */
function isUserSimulatorPrompt(request: LlmRequest): boolean {
  return (
    Object.keys(request.toolsDict).length === 0 &&
    request.contents.some((c) => c.role === "user" && getTextOf(c).includes(USER_SIMULATOR_STOP_SIGNAL))
  );
}

function pickToolCall(userText: string, tools: string[]): { name: string; args: Record<string, unknown> } | undefined {
  const t = userText.toLowerCase();
  if (tools.includes("get_current_time") && /\btime\b|\bclock\b|\bdate\b/.test(t)) {
    const zone = /in ([a-z_/]+)/i.exec(userText)?.[1];
    return { name: "get_current_time", args: zone ? { timezone: zone } : {} };
  }
  if (tools.includes("roll_die") && /\broll\b|\bdie\b|\bdice\b/.test(t)) {
    const sides = Number(/(\d+)[- ]?sided|d(\d+)/i.exec(userText)?.slice(1).find(Boolean) ?? 6);
    return { name: "roll_die", args: { sides } };
  }
  if (tools.includes("submit_expense")) {
    const found = /(\d+(?:\.\d+)?)\s*(eur|usd|gbp|€|\$)(?:\s+(?:on|for)\s+(.+?))?[.!]?$/i.exec(userText);
    if (found) {
      const currency = { "€": "EUR", $: "USD" }[found[2]!] ?? found[2]!.toUpperCase();
      return {
        name: "submit_expense",
        args: { amount: Number(found[1]), currency, purpose: found[3] ?? "unspecified" },
      };
    }
  }
  return undefined;
}

function answerFromTool(name: string, response: Record<string, unknown>): string {
  if (response.error) return `The tool ${name} failed: ${String(response.error)}`;
  if (name === "get_current_time") return `It is ${String(response.time)} in ${String(response.timezone)}.`;
  if (name === "submit_expense" && response.status)
    return response.status === "filed"
      ? `Your expense of ${String(response.amount)} ${String(response.currency)} for ${String(response.purpose)} is filed as ${String(response.id)} (approved by ${String(response.approvedBy)}).`
      : `Your expense of ${String(response.amount)} ${String(response.currency)} for ${String(response.purpose)} was rejected${response.comment ? `: ${String(response.comment)}` : ""}.`;
  if (name === "roll_die") return `I rolled a ${String(response.sides)}-sided die and got ${String(response.result)}.`;
  return `The tool ${name} returned ${JSON.stringify(response)}.`;
}

function defaultAnswer(userText: string, tools: string[]): string {
  const offer = tools.length
    ? ` I can use these tools: ${tools.join(", ")}. Try ${
        tools.includes("submit_expense")
          ? '"I spent 250 EUR on train tickets"'
          : '"what time is it in Europe/Paris?" or "roll a 20-sided die"'
      }.`
    : "";
  const demo =
    " (I am the offline demo model: set GOOGLE_API_KEY or GEMINI_API_KEY, OPENAI_API_KEY, ANTHROPIC_API_KEY or " +
    "OLLAMA_HOST for a real one.)";
  return (userText ? `You said: "${userText}".${offer}` : `Hello!${offer}`) + demo;
}

function usage(request: LlmRequest, outputTokens: number): LlmResponse["usageMetadata"] {
  const prompt = Math.ceil(JSON.stringify(request.contents).length / 4);
  const out = Math.ceil(outputTokens);
  return { promptTokenCount: prompt, candidatesTokenCount: out, totalTokenCount: prompt + out };
}
