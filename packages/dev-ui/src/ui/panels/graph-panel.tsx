import { useEffect, useState } from "preact/hooks";
import { dotFromResponse } from "../lib/dot.js";
import type { Api } from "../services/api.js";
import { GraphView } from "./graph-view.js";

/** The app's agent graph from GET /dev/apps/{app}/build_graph_image. */
export function GraphPanel({
  api,
  app,
  dark,
  onError,
}: {
  api: Api;
  app: string;
  dark: boolean;
  onError(m: string): void;
}) {
  const [dot, setDot] = useState<string | undefined>();
  useEffect(() => {
    let live = true;
    setDot(undefined);
    api.appGraph(app, dark).then(
      (body) => live && setDot(dotFromResponse(body) ?? ""),
      (e: Error) => live && onError(`Could not load the agent graph: ${e.message}`),
    );
    return () => {
      live = false;
    };
  }, [api, app, dark]);
  if (dot === undefined) return <p class="muted">Loading graph…</p>;
  if (!dot) return <p class="muted">The server has no graph for this app.</p>;
  return (
    <section>
      <h3>Agent graph</h3>
      <GraphView dot={dot} label={`Agent graph of ${app}`} />
    </section>
  );
}
