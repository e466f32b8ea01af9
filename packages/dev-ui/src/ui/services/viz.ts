import { isDot } from "../lib/dot.js";

type VizInstance = { renderSVGElement(dot: string): SVGSVGElement };
let instance: Promise<VizInstance> | undefined;

/** DOT to an SVG element. Graphviz (wasm) is loaded on first use, in its own chunk. */
export async function renderDot(dot: string): Promise<SVGSVGElement> {
  if (!isDot(dot)) throw new Error("The server did not return a Graphviz graph.");
  instance ??= import("@viz-js/viz").then((m) => m.instance());
  const viz = await instance;
  return viz.renderSVGElement(dot);
}
