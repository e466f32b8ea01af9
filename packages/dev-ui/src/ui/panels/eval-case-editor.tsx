import { useEffect, useState } from "preact/hooks";
import type { EvalCaseJson } from "../services/api.js";
import type { Api } from "../services/api.js";

interface Props {
  api: Api;
  app: string;
  setId: string;
  evalId: string;
  onError(message: string): void;
  onClose(): void;
}

function text(parts: { text?: string; thought?: boolean }[] | undefined): string {
  return (parts ?? [])
    .filter((p) => typeof p.text === "string" && !p.thought)
    .map((p) => p.text)
    .join("");
}

/** A case's expected turns: the final response and the tool calls of each, editable, saved with PUT. */
export function EvalCaseEditor({ api, app, setId, evalId, onError, onClose }: Props) {
  const [evalCase, setEvalCase] = useState<EvalCaseJson | undefined>();
  const [responses, setResponses] = useState<string[]>([]);
  const [tools, setTools] = useState<string[]>([]);
  const [saving, setSaving] = useState(false);

  useEffect(() => {
    setEvalCase(undefined);
    api.getEvalCase(app, setId, evalId).then(
      (c) => {
        setEvalCase(c);
        setResponses(c.conversation.map((t) => text(t.finalResponse?.parts)));
        setTools(c.conversation.map((t) => JSON.stringify(t.intermediateData?.toolUses ?? [], null, 2)));
      },
      (e: Error) => onError(`Could not load the case: ${e.message}`),
    );
  }, [api, app, setId, evalId]);

  if (!evalCase) return <p class="muted">Loading {evalId}…</p>;
  const save = async () => {
    const conversation = [];
    for (const [i, turn] of evalCase.conversation.entries()) {
      let toolUses: unknown;
      try {
        toolUses = JSON.parse(tools[i] ?? "[]");
      } catch {
        return onError(`Turn ${i + 1}: the expected tool calls are not valid JSON.`);
      }
      if (!Array.isArray(toolUses)) return onError(`Turn ${i + 1}: the expected tool calls must be a JSON array.`);
      conversation.push({
        ...turn,
        finalResponse: { role: "model", parts: [{ text: responses[i] ?? "" }] },
        intermediateData: { ...turn.intermediateData, toolUses },
      });
    }
    setSaving(true);
    try {
      const saved = await api.updateEvalCase(app, setId, { ...evalCase, conversation });
      setEvalCase(saved);
    } catch (e) {
      onError(`Could not save the case: ${(e as Error).message}`);
    } finally {
      setSaving(false);
    }
  };
  return (
    <section class="eval-case-editor" aria-label={`Eval case ${evalId}`}>
      <h5>{evalId}</h5>
      {evalCase.conversation.length === 0 ? <p class="muted">No fixed turns (a simulated-user scenario).</p> : null}
      {evalCase.conversation.map((turn, i) => (
        <fieldset key={i}>
          <legend>Turn {i + 1}</legend>
          <p>
            <strong>User:</strong> {text(turn.userContent.parts)}
          </p>
          <label>
            Expected tool calls
            <textarea
              aria-label={`Expected tool calls of turn ${i + 1}`}
              rows={3}
              value={tools[i]}
              onInput={(e) =>
                setTools(tools.map((t, j) => (j === i ? (e.currentTarget as HTMLTextAreaElement).value : t)))
              }
            />
          </label>
          <label>
            Expected response
            <textarea
              aria-label={`Expected response of turn ${i + 1}`}
              rows={2}
              value={responses[i]}
              onInput={(e) =>
                setResponses(responses.map((r, j) => (j === i ? (e.currentTarget as HTMLTextAreaElement).value : r)))
              }
            />
          </label>
        </fieldset>
      ))}
      <p class="row">
        <button type="button" class="primary" disabled={saving} onClick={() => void save()}>
          {saving ? "Saving…" : "Save case"}
        </button>
        <button type="button" onClick={onClose}>
          Close
        </button>
      </p>
    </section>
  );
}
