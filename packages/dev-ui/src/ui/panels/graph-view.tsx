import { useEffect, useRef, useState } from "preact/hooks";
import { renderDot } from "../services/viz.js";

/** Renders a DOT source to SVG (Graphviz compiled to wasm, loaded on demand). */
export function GraphView({ dot, label }: { dot: string; label: string }) {
  const host = useRef<HTMLDivElement>(null);
  const [error, setError] = useState<string | undefined>();
  useEffect(() => {
    let live = true;
    setError(undefined);
    renderDot(dot).then(
      (svg) => {
        if (!live || !host.current) return;
        svg.setAttribute("role", "img");
        svg.setAttribute("aria-label", label);
        host.current.replaceChildren(svg);
      },
      (e: Error) => live && setError(e.message),
    );
    return () => {
      live = false;
    };
  }, [dot]);
  return (
    <div class="graph">
      {error ? <p class="error-block">Could not draw the graph: {error}</p> : null}
      <div ref={host} />
    </div>
  );
}
