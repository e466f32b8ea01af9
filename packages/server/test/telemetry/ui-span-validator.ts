/**
 * The dev UI's acceptance rules for GET .../debug/trace/session/:sid (http-api.md 4.8,
 * checklist 31): the UI drops the whole answer when one element fails. Returns the problems
 * found, one line each; an empty list means the UI would show the trace.
 */
export function uiSpanProblems(body: unknown): string[] {
  if (!Array.isArray(body)) return ["the answer is not an array"];
  const problems: string[] = [];
  body.forEach((span: unknown, i) => {
    const at = `span ${i}`;
    if (typeof span !== "object" || span === null || Array.isArray(span)) {
      problems.push(`${at}: not an object`);
      return;
    }
    const s = span as Record<string, unknown>;
    if (typeof s.name !== "string") problems.push(`${at}: name is not a string`);
    for (const key of ["start_time", "end_time"])
      if (typeof s[key] !== "number" || !Number.isFinite(s[key])) problems.push(`${at}: ${key} is not a number`);
    for (const key of ["trace_id", "span_id"])
      if (!isIdLike(s[key])) problems.push(`${at}: ${key} is not a string or number`);
    if (!(s.parent_span_id === undefined || s.parent_span_id === null || isIdLike(s.parent_span_id))) {
      problems.push(`${at}: parent_span_id is not a string, number or null`);
    }
    if (s.logs !== undefined && !Array.isArray(s.logs)) problems.push(`${at}: logs is not an array`);
    const attributes = s.attributes;
    if (typeof attributes !== "object" || attributes === null || Array.isArray(attributes)) {
      problems.push(`${at}: attributes is not an object`);
      return;
    }
    const attrs = attributes as Record<string, unknown>;
    for (const [key, value] of Object.entries(attrs))
      if (!isOtelValue(value)) problems.push(`${at}: attribute ${key} is not an OTel value`);
    const op = attrs["gen_ai.operation.name"];
    if (op === "invoke_agent" && typeof attrs["gen_ai.conversation.id"] !== "string")
      problems.push(`${at}: invoke_agent without gen_ai.conversation.id`);
    if (op === "generate_content") {
      for (const key of ["gcp.vertex.agent.event_id", "gcp.vertex.agent.invocation_id"]) {
        if (typeof attrs[key] !== "string") problems.push(`${at}: generate_content without string ${key}`);
      }
    }
  });
  return problems;
}

function isIdLike(value: unknown): boolean {
  return typeof value === "string" || typeof value === "number";
}

function isOtelValue(value: unknown): boolean {
  const scalar = (v: unknown) => typeof v === "string" || typeof v === "number" || typeof v === "boolean";
  return scalar(value) || (Array.isArray(value) && value.every(scalar));
}
