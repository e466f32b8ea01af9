import DOMPurify from "dompurify";
import { marked } from "marked";

let linksHooked = false;

/** Links in model text open in a new tab, so following one never leaves the UI. */
function hookLinks(): void {
  if (linksHooked) return;
  linksHooked = true;
  DOMPurify.addHook("afterSanitizeAttributes", (node) => {
    if (node.tagName === "A" && node.hasAttribute("href")) {
      node.setAttribute("target", "_blank");
      node.setAttribute("rel", "noopener noreferrer");
    }
  });
}

/** Model text as HTML: markdown through marked, then DOMPurify so no script or handler survives. */
export function renderMarkdown(text: string): string {
  hookLinks();
  const html = marked.parse(text, { async: false, gfm: true, breaks: true });
  return DOMPurify.sanitize(html, { USE_PROFILES: { html: true } });
}
