import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import type { ErrorRequestHandler, Express, NextFunction, Request, RequestHandler, Response } from "express";
import { ConfigurationError } from "@agentkit/core";
import { LARGE_BODY_BYTES } from "../http/body-guard.js";
import { leanBodyLength, untypedBodyLength } from "../http/json-body.js";
import { isHotRoute } from "./hot-routes.js";

export interface HotRequestListenerOptions {
  /** The Express app (built on the first call): it serves every request the lean path does not take. */
  app: () => Express;
  /**
   * The app-level middleware Express runs for these requests, in the app's order: the guards,
   * body reading, authorization, then `hotRoutes`. The same function objects as the app's.
   */
  chain: readonly RequestHandler[];
  /** The app's error handler (JSON error bodies). */
  onError: ErrorRequestHandler;
  /** The JSON body limit in bytes: larger bodies (and large ones, which take the body budget) go to Express. */
  bodyLimitBytes: number;
  /**
   * Give requests Express's request and response prototypes. Needed when custom auth rules are
   * configured: their `userOf(req)` is written against Express's request and may use its helpers.
   */
  expressPrototypes: boolean;
}

/**
 * The server's `request` listener: the hot requests of every agent flow (`hotRoutes`' exact
 * paths) in their ordinary form (a small `Content-Length` body of UTF-8 `application/json`, or
 * one with no media type at all, which is left unparsed; no content coding, no conditional
 * headers) run the app's own guard chain directly on node's request and response, without
 * Express's app router (a layer match and `debug` calls per middleware) and, unless custom auth
 * rules need them, without swapping in Express's request and response prototypes. Every policy is the app's own function, so the answers are the same
 * (test/hot-request-listener.test.ts compares them); everything else goes to Express unchanged.
 */
export function hotRequestListener(options: HotRequestListenerOptions): RequestListener {
  const { app, chain, onError, expressPrototypes } = options;
  const maxBodyBytes = Math.min(options.bodyLimitBytes, LARGE_BODY_BYTES - 1);
  return (req, res) => {
    if (!takesLean(req, maxBodyBytes)) return void expressApp(app, onError, req, res);
    if (expressPrototypes) {
      const built = app();
      Object.setPrototypeOf(req, built.request);
      Object.setPrototypeOf(res, built.response);
    }
    const request = req as Request;
    const response = res as unknown as Response;
    request.res = response;
    response.locals = Object.create(null) as Response["locals"];
    new ChainRun(chain, onError, request, response).advance();
  };
}

/** Hands a request to the Express app; if building the app fails, answers with the error handler. */
function expressApp(app: () => Express, onError: ErrorRequestHandler, req: IncomingMessage, res: ServerResponse): void {
  let built: Express;
  try {
    built = app();
  } catch (error) {
    return void onError(error, req as Request, res as unknown as Response, () => res.destroy());
  }
  built(req, res);
}

/** Whether the lean path serves a request exactly as the app would (else Express does). */
function takesLean(req: IncomingMessage, maxBodyBytes: number): boolean {
  if (!isHotRoute(req.method, req.url)) return false;
  const { headers } = req;
  // A conditional request may get Express's freshness answer (304): keep it on Express.
  if (headers["if-none-match"] !== undefined || headers["if-modified-since"] !== undefined) return false;
  const length = leanBodyLength(req) ?? untypedBodyLength(req);
  return length !== undefined && length <= maxBodyBytes;
}

/**
 * Calls each middleware with a `next` as Express's router does: a throw or a rejected promise,
 * or `next(error)`, skips to the error handler. A class with bound methods rather than closures:
 * two functions per request, nothing else.
 */
class ChainRun {
  private index = 0;
  private readonly next: NextFunction;

  constructor(
    private readonly chain: readonly RequestHandler[],
    private readonly onError: ErrorRequestHandler,
    private readonly req: Request,
    private readonly res: Response,
  ) {
    this.next = this.advance.bind(this) as NextFunction;
    this.fail = this.fail.bind(this);
  }

  advance(error?: unknown): void {
    if (error) return void this.fail(error);
    const step = this.chain[this.index++];
    // `hotRoutes` (last) passes on only requests `isHotRoute` rejects, which never get here.
    if (!step) return void this.fail(new ConfigurationError("A hot route request passed every handler."));
    try {
      const result: unknown = step(this.req, this.res, this.next);
      if (result instanceof Promise) result.catch(this.fail);
    } catch (caught) {
      this.fail(caught);
    }
  }

  fail(error: unknown): void {
    try {
      this.onError(error, this.req, this.res, this.next);
    } catch {
      // Express would fall back to its final handler's HTML page; no answer here can match it.
      this.res.destroy();
    }
  }
}
