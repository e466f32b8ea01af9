import type { Part } from "../content/content.js";
import type { Event } from "../events/event.js";

/** Other agents' turns become user context; this agent's and the user's events stay as they are. */
export function presentEvents(events: Event[], agentName: string): Event[] {
  // No other agent's reply (a single-agent history): the list as it is, not a copy.
  let first = 0;
  while (first < events.length && !isOtherAgentReply(agentName, events[first]!)) first++;
  if (first === events.length) return events;
  const presented: Event[] = events.slice(0, first);
  for (let i = first; i < events.length; i++) {
    const event = events[i]!;
    if (isOtherAgentReply(agentName, event)) {
      const converted = presentOtherAgentMessage(event);
      if (converted) presented.push(converted);
    } else {
      presented.push(event);
    }
  }
  return presented;
}

/** An event another agent wrote (not this agent, not the user). */
export function isOtherAgentReply(agentName: string, event: Event): boolean {
  return !!agentName && event.author !== agentName && event.author !== "user";
}

/** Another agent's turn as user context: "For context:" then "[agent] said: ..." lines. */
function presentOtherAgentMessage(event: Event): Event | undefined {
  if (!event.content?.parts) return event;
  const parts: Part[] = [{ text: "For context:" }];
  for (const part of event.content.parts) {
    if (part.thought) continue;
    if (part.text) parts.push({ text: `[${event.author}] said: ${part.text}` });
    else if (part.functionCall) {
      parts.push({
        text:
          `[${event.author}] called tool \`${part.functionCall.name}\` with ` +
          `parameters: ${JSON.stringify(part.functionCall.args ?? {})}`,
      });
    } else if (part.functionResponse) {
      parts.push({
        text:
          `[${event.author}] \`${part.functionResponse.name}\` tool returned ` +
          `result: ${JSON.stringify(part.functionResponse.response ?? {})}`,
      });
    } else if (part.text === undefined) parts.push(part);
  }
  if (parts.length === 1) return undefined;
  return { ...event, author: "user", content: { role: "user", parts } };
}
