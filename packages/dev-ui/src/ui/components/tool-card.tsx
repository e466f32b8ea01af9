import type { FunctionCall, FunctionResponse } from "../lib/types.js";
import { JsonView } from "./json-view.js";

/** A function call or response as an expandable card (arguments / result inside). */
export function ToolCard({ call, response }: { call?: FunctionCall; response?: FunctionResponse }) {
  const name = call?.name ?? response?.name ?? "?";
  const isCall = call !== undefined;
  return (
    <details class={isCall ? "tool-card call" : "tool-card response"} data-tool={name}>
      <summary>
        <span aria-hidden="true">{isCall ? "⚙" : "↩"}</span> {isCall ? "Call" : "Result of"} <code>{name}</code>
      </summary>
      <JsonView
        value={isCall ? (call.args ?? {}) : (response?.response ?? {})}
        label={isCall ? `Arguments of ${name}` : `Result of ${name}`}
      />
    </details>
  );
}
