import type { IncomingMessage } from "node:http";
import type { RequestHandler } from "express";

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "::1", "[::1]"]);

export function isLoopbackHost(host: string | undefined): boolean {
  if (!host) return false;
  const h = host.toLowerCase();
  return LOOPBACK_HOSTS.has(h) || h.endsWith(".localhost") || /^127\.\d+\.\d+\.\d+$/.test(h);
}

/** The hostname of a Host header (`name:port`, `[v6]:port`), lower-cased. */
export function hostnameOf(hostHeader: string): string {
  const h = hostHeader.trim().toLowerCase();
  if (h.startsWith("[")) return h.slice(0, h.indexOf("]") + 1);
  const colon = h.lastIndexOf(":");
  return colon >= 0 ? h.slice(0, colon) : h;
}

export interface HostGuardOptions {
  /** The address the server is bound to (read on every request: known only after listen). */
  boundHost: () => string | undefined;
  /** Extra Host names accepted while bound to loopback (e.g. a tunnel name). */
  allowedHosts: readonly string[];
  /** Whether a cross-origin `Origin` is allow-listed (the CORS allow-list). */
  isAllowedOrigin: (origin: string) => boolean;
}

/**
 * Why a request is refused, or undefined when it passes. Two checks (http-api.md 4.13):
 * - DNS rebinding: while bound to loopback, the Host header must name a loopback host or an
 *   allowed host, so a page on a rebound domain cannot reach the server;
 * - Origin: a state-changing request (anything but GET/HEAD/OPTIONS) that carries an Origin
 *   must come from the server's own origin or an allow-listed one; while bound to loopback
 *   without an allow-list, same-origin also means a loopback origin.
 * Requests without Origin (curl, server-side clients) pass the Origin check.
 */
export function rejectReason(req: IncomingMessage, options: HostGuardOptions, upgrade = false): string | undefined {
  const loopback = isLoopbackHost(options.boundHost());
  const hostHeader = req.headers.host;
  if (loopback) {
    if (!hostHeader) return "Forbidden: missing Host header";
    const name = hostnameOf(hostHeader);
    if (!isLoopbackHost(name) && !options.allowedHosts.some((h) => h.toLowerCase() === name)) {
      return "Forbidden: possible DNS-rebinding request";
    }
  }
  const method = (req.method ?? "GET").toUpperCase();
  const origin = req.headers.origin;
  const stateChanging = upgrade || !(method === "GET" || method === "HEAD" || method === "OPTIONS");
  if (!stateChanging || origin === undefined) return undefined;
  if (options.isAllowedOrigin(origin)) return undefined;
  let originHost: string;
  try {
    originHost = new URL(origin).host.toLowerCase();
  } catch {
    return "Forbidden: origin not allowed";
  }
  if (hostHeader && originHost === hostHeader.trim().toLowerCase()) {
    if (!loopback || isLoopbackHost(hostnameOf(originHost)) || options.allowedHosts.includes(hostnameOf(originHost)))
      return undefined;
  }
  return "Forbidden: origin not allowed";
}

/** Express middleware answering 403 JSON for requests `rejectReason` refuses. */
export function hostGuard(options: HostGuardOptions): RequestHandler {
  return (req, res, next) => {
    const reason = rejectReason(req, options);
    if (!reason) return next();
    res.status(403).json({ error: reason, detail: reason, code: "FORBIDDEN" });
  };
}
