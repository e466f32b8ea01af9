import { createRequire } from "node:module";
import type express from "express";

type ExpressModule = typeof express;

let loaded: ExpressModule | undefined;

/**
 * Express, required on first use instead of imported: with its body parsers, `send`, mime
 * tables and some 130 CommonJS files it is the largest part of a server's start, and an API
 * server whose requests are all agent flows (`hotRequestListener`) never needs it. Everything in
 * this package that makes Express objects goes through here, so nothing loads it before the
 * Express app is built (`createAgentServer`). The module is CommonJS, so a synchronous require
 * gives the very instance an `import` would.
 */
export function loadExpress(): ExpressModule {
  loaded ??= createRequire(import.meta.url)("express") as ExpressModule;
  return loaded;
}

/** `express.Router()`, loading Express on the first call. */
export const Router = ((options?: express.RouterOptions) => loadExpress().Router(options)) as ExpressModule["Router"];
/** A router (the type of `Router()`'s result). */
export type Router = express.Router;

let standalone: ExpressModule["Router"] | undefined;

/**
 * A router from the `router` package alone (the very implementation `express.Router` re-exports,
 * some 16 files against Express's 130), for what must match paths before any Express app exists:
 * the route rules of authentication (`AccessControl`).
 */
export function standaloneRouter(): Router {
  standalone ??= createRequire(import.meta.url)("router") as ExpressModule["Router"];
  return standalone();
}
