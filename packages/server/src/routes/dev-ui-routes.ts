import { createHash } from "node:crypto";
import { loadExpress, Router } from "../http/express-module.js";

export interface DevUiOptions {
  /**
   * Folder of the built dev UI (index.html with `<base href="./">` and its assets). Without it
   * `/dev-ui/` is a page saying the UI is not installed.
   */
  dir?: string;
  /** Shown by the UI in its header instead of the default logo. */
  logo?: { text: string; imageUrl: string };
  /**
   * The stored telemetry consent answer (true / false, null before one), written into the UI's
   * runtime config so it asks once: the `read` of the dev tooling's `TelemetryConsentStore`.
   */
  telemetryConsent?: () => Promise<boolean | null>;
}

const PLACEHOLDER_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<base href="./">
<title>agentkit dev UI</title>
<script type="module" src="main.js"></script>
</head>
<body>
<h1>agentkit</h1>
<p>The dev UI package (<code>@agentkit/dev-ui</code>) is not installed, so there is no UI to show.
The API is served: try <a href="../list-apps">/list-apps</a>.</p>
<p id="apps"></p>
</body>
</html>
`;

const PLACEHOLDER_JS = `// agentkit: placeholder for the dev UI (not installed). Lists the served apps.
const target = document.getElementById("apps");
fetch("../list-apps").then((r) => r.json()).then((apps) => {
  if (target) target.textContent = "Apps: " + (apps.length ? apps.join(", ") : "none");
}).catch(() => {});
`;

/**
 * Where an OAuth popup lands (the redirect URI of the dev UI's consent card): a page that hands
 * its own URL (with `code` and `state`) to the window that opened it, same origin only, and
 * closes. Nothing is stored or logged here; the code is redeemed by the flow once the UI sends it.
 */
export const OAUTH_CALLBACK_PATH = "/dev-ui/oauth/callback";

const OAUTH_CALLBACK_SCRIPT = `if (window.opener) { window.opener.postMessage({ authResponseUrl: window.location.href }, window.location.origin); window.close(); } else { document.body.textContent = "Authorization finished: return to the dev UI."; }`;
const OAUTH_CALLBACK_SCRIPT_HASH = `sha256-${createHash("sha256").update(OAUTH_CALLBACK_SCRIPT).digest("base64")}`;
const OAUTH_CALLBACK_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Authorization</title></head>
<body><p>Finishing authorization...</p><script>${OAUTH_CALLBACK_SCRIPT}</script></body></html>
`;

/**
 * `/` → `/dev-ui/`, the dev UI's static files and its runtime config (http-api.md 4.12; with
 * the stored telemetry consent answer, when there is one).
 * Without a UI folder a small page says the UI is not installed (still a valid page with a
 * module script, so a browser pointed at the server sees why).
 */
export function devUiRoutes(options: DevUiOptions | undefined): Router {
  const router = Router();
  // The query survives: ADK's dev UI sends OAuth popups back to the origin (`/?code=...&state=...`)
  // and reads them on the UI page.
  router.get("/", (req, res) => {
    const query = req.originalUrl.indexOf("?");
    res.redirect(302, `/dev-ui/${query >= 0 ? req.originalUrl.slice(query) : ""}`);
  });
  router.get(OAUTH_CALLBACK_PATH, (_req, res) => {
    res
      .set("Cache-Control", "no-store")
      .set("Referrer-Policy", "no-referrer")
      .set("Content-Security-Policy", `default-src 'none'; script-src '${OAUTH_CALLBACK_SCRIPT_HASH}'`)
      .type("html")
      .send(OAUTH_CALLBACK_HTML);
  });
  router.get("/dev-ui", (req, res, next) => {
    // Routing is not strict, so "/dev-ui/" lands here too: only the slash-less form redirects.
    if (req.path.endsWith("/")) return next();
    const query = req.originalUrl.indexOf("?");
    res.redirect(301, `/dev-ui/${query >= 0 ? req.originalUrl.slice(query) : ""}`);
  });

  // Generated rather than shipped: same-origin serving means an empty backendUrl.
  router.get("/dev-ui/assets/config/runtime-config.json", async (_req, res) => {
    // The telemetry answer, once given, so the UI does not ask again (as ADK Python writes it).
    const telemetry = (await options?.telemetryConsent?.()) ?? null;
    res.set("Cache-Control", "no-store").json({
      backendUrl: "",
      ...(options?.logo ? { logo: options.logo } : {}),
      ...(telemetry !== null ? { telemetry } : {}),
    });
  });
  router.get("/dev-ui/config", (_req, res) => {
    res.json({ logo_text: options?.logo?.text ?? null, logo_image_url: options?.logo?.imageUrl ?? null });
  });

  if (options?.dir !== undefined) {
    router.use(
      "/dev-ui",
      loadExpress().static(options.dir, {
        index: "index.html",
        redirect: false,
        setHeaders: (res, path) => {
          // Module scripts with another type leave a blank page (the classic Windows registry bug).
          if (/\.m?js$/.test(path)) res.setHeader("Content-Type", "text/javascript; charset=utf-8");
          // Vite names built assets by content hash: they never change, so browsers keep them;
          // everything else (index.html above all) is revalidated so a new build shows at once.
          res.setHeader("Cache-Control", isHashedAsset(path) ? "public, max-age=31536000, immutable" : "no-cache");
        },
      }),
    );
  } else {
    router.get("/dev-ui/", (_req, res) => res.type("html").send(PLACEHOLDER_HTML));
    router.get("/dev-ui/index.html", (_req, res) => res.type("html").send(PLACEHOLDER_HTML));
    router.get("/dev-ui/main.js", (_req, res) => res.type("text/javascript").send(PLACEHOLDER_JS));
  }
  return router;
}

/**
 * `assets/index-B7YbSn6N.js`: a file under assets/ whose name ends in Vite's 8-character
 * content hash (one upper-case letter or digit at least, so `app-settings.js` is not one).
 */
function isHashedAsset(path: string): boolean {
  return /[\\/]assets[\\/][^\\/]+-(?=[\w-]*[A-Z0-9])[\w-]{8}\.[a-z0-9]+$/.test(path);
}
