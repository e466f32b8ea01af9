import { useEffect, useRef, useState } from "preact/hooks";
import type { NodeStatus } from "../lib/run-status.js";
import { renderDot } from "../services/viz.js";

const STATUS_CLASSES = ["status-running", "status-waiting", "status-completed", "status-failed", "status-interrupted"];

/**
 * Renders a DOT source to SVG (Graphviz compiled to wasm, loaded on demand). `status` colours
 * the nodes whose DOT id (the SVG node's title) it lists.
 */
export function GraphView({
  dot,
  label,
  status,
  onDrawn,
}: {
  dot: string;
  label: string;
  status?: ReadonlyMap<string, NodeStatus>;
  /** The ids of the drawn nodes, once drawn. */
  onDrawn?(ids: ReadonlySet<string>): void;
}) {
  const host = useRef<HTMLDivElement>(null);
  const [svg, setSvg] = useState<SVGSVGElement | undefined>();
  const [error, setError] = useState<string | undefined>();
  useEffect(() => {
    let live = true;
    setError(undefined);
    renderDot(dot).then(
      (rendered) => {
        if (!live || !host.current) return;
        rendered.setAttribute("role", "img");
        rendered.setAttribute("aria-label", label);
        host.current.replaceChildren(rendered);
        setSvg(rendered);
        onDrawn?.(new Set([...rendered.querySelectorAll("g.node > title")].map((t) => t.textContent ?? "")));
      },
      (e: Error) => live && setError(e.message),
    );
    return () => {
      live = false;
    };
  }, [dot]);
  useEffect(() => {
    if (!svg) return;
    for (const node of svg.querySelectorAll<SVGGElement>("g.node")) {
      const id = node.querySelector("title")?.textContent ?? "";
      node.classList.remove(...STATUS_CLASSES);
      const value = status?.get(id);
      if (value) node.classList.add(`status-${value}`);
      if (value) node.setAttribute("data-status", value);
      else node.removeAttribute("data-status");
    }
  }, [svg, status]);
  return (
    <div class="graph">
      {error ? <p class="error-block">Could not draw the graph: {error}</p> : null}
      <div ref={host} />
    </div>
  );
}
