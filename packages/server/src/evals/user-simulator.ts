import { intermediateTextsOf } from "./invocation-data.js";
import { createLlmRequest, getTextOf, type BaseLlm, type LlmResponse } from "@agentkit/core";
import type { ConversationScenario, Invocation } from "./eval-types.js";

/** What the simulator writes when the user is done (ADK's stop signal). */
export const USER_SIMULATOR_STOP_SIGNAL = "</finished>";

export interface UserSimulatorOptions {
  /** Any model of the registry. */
  model: BaseLlm;
  /**
   * Most user turns in one conversation, the starting prompt included (ADK's
   * `max_allowed_invocations`, default 20); -1 for no limit.
   */
  maxAllowedInvocations?: number;
}

/** Gives an app's user simulator (`undefined`: the app has none). */
export type UserSimulatorResolver = (appName: string) => Promise<UserSimulatorOptions | undefined>;

/**
 * The next message of a simulated user following the scenario, given the conversation so
 * far; `undefined` when the user is done (the stop signal). Throws when the model fails or
 * answers nothing.
 */
export async function nextSimulatedUserMessage(
  simulator: UserSimulatorOptions,
  scenario: ConversationScenario,
  conversation: readonly Invocation[],
  signal?: AbortSignal,
): Promise<string | undefined> {
  const history = conversation
    .flatMap((inv) => [
      `user: ${getTextOf(inv.userContent)}`,
      ...intermediateTextsOf(inv).map((text) => `agent: ${text}`),
      `agent: ${inv.finalResponse ? getTextOf(inv.finalResponse) : "(no answer)"}`,
    ])
    .join("\n\n");
  const persona =
    scenario.userPersona === undefined
      ? ""
      : `\nStay in this persona throughout: ${typeof scenario.userPersona === "string" ? scenario.userPersona : JSON.stringify(scenario.userPersona)}\n`;
  const prompt = [
    "You play the human user in a test conversation with an AI agent. Write the user's next message only:",
    "no quotes, no labels, no explanation. Follow the plan below; reveal what it says only when the agent",
    "needs it, and never do the agent's work yourself.",
    persona,
    `Plan:\n${scenario.conversationPlan}`,
    `\nConversation so far:\n${history}`,
    `\nWhen every goal of the plan is reached, or the agent cannot go further, reply with ${USER_SIMULATOR_STOP_SIGNAL} alone.`,
  ].join("\n");
  const request = createLlmRequest({
    model: simulator.model.model,
    contents: [{ role: "user", parts: [{ text: prompt }] }],
  });
  let last: LlmResponse | undefined;
  for await (const response of simulator.model.generateContentAsync(request, false, signal ? { signal } : {}))
    if (!response.partial) last = response;
  if (last?.errorCode) throw new Error(`the user simulator model failed: ${last.errorMessage ?? last.errorCode}`);
  const text = last?.content
    ? (last.content.parts ?? [])
        .filter((p) => typeof p.text === "string" && !p.thought)
        .map((p) => p.text)
        .join("")
        .trim()
    : "";
  if (text.toLowerCase().includes(USER_SIMULATOR_STOP_SIGNAL)) return undefined;
  if (text === "") throw new Error("the user simulator model answered nothing");
  return text;
}
