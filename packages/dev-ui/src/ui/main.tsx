import { render } from "preact";
import { App } from "./app.js";
import { Api } from "./services/api.js";
import "./styles.css";

/** The server writes the backend URL into the runtime config (http-api.md 4.12); read it before starting. */
async function start(): Promise<void> {
  const root = document.getElementById("root");
  if (!root) return;
  let backendUrl = "";
  try {
    const response = await fetch("./assets/config/runtime-config.json", { cache: "no-store" });
    if (response.ok) {
      const config = (await response.json()) as { backendUrl?: unknown };
      if (typeof config.backendUrl === "string") backendUrl = config.backendUrl.replace(/\/+$/, "");
    }
  } catch {
    // no runtime config: talk to the page's own origin
  }
  render(<App api={new Api(backendUrl)} />, root);
}

void start();
