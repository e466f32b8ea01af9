import type { IncomingMessage } from "node:http";
import type { RequestHandler } from "express";
import { sendJson } from "./send-json.js";

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
  /** Host names accepted besides the bound address (e.g. the server's DNS name, a tunnel name). */
  allowedHosts: readonly string[];
  /** Whether a cross-origin `Origin` is allow-listed (the CORS allow-list). */
  isAllowedOrigin: (origin: string) => boolean;
}

/** `0.0.0.0` and `::`: every interface, loopback included. */
export function isWildcardHost(host: string | undefined): boolean {
  const h = (host ?? "").toLowerCase().replace(/^\[(.*)\]$/, "$1");
  return h === "0.0.0.0" || h === "::" || h === "0:0:0:0:0:0:0:0";
}

/** A host name or address as `hostnameOf` gives it: lower case, IPv6 in brackets, no port. */
export function normalizeHostName(host: string): string {
  const h = host.trim().toLowerCase();
  if (!h.startsWith("[") && h.indexOf(":") !== h.lastIndexOf(":")) return `[${h}]`;
  return hostnameOf(h);
}

/**
 * Whether a Host header's name may reach a server bound to `bound`. A DNS-rebinding page
 * sends its own domain name, so only names the operator vouches for pass: loopback names
 * when loopback is reachable (a loopback or wildcard bind), the bound address itself (for a
 * wildcard bind: the machine's interface addresses), and `allowedHosts`.
 */
export function isAcceptedHost(name: string, bound: string | undefined, allowedHosts: readonly string[]): boolean {
  if (allowedHosts.some((h) => h.toLowerCase() === name || normalizeHostName(h) === name)) return true;
  if (isLoopbackHost(bound) || bound === undefined) return isLoopbackHost(name);
  if (isWildcardHost(bound)) return isLoopbackHost(name) || isInterfaceAddress(name);
  return normalizeHostName(bound) === name;
}

/** Whether an IP literal (`10.0.0.5`, `[fe80::1]`) is an address of this machine. */
function isInterfaceAddress(name: string): boolean {
  const address = name.replace(/^\[(.*)\]$/, "$1");
  if (!/^[\d.]+$/.test(address) && !address.includes(":")) return false; // a DNS name is never one
  const interfaces = process.getBuiltinModule("node:os").networkInterfaces();
  return Object.values(interfaces).some((list) => list?.some((i) => i.address.toLowerCase() === address));
}

/**
 * Why a request is refused, or undefined when it passes. Two checks (http-api.md 4.13):
 * - DNS rebinding, for every bind: the Host header must name a host `isAcceptedHost` accepts
 *   (loopback names on a loopback bind; the bound address and `allowedHosts` on any bind), so
 *   a page on a rebound domain cannot reach the server;
 * - Origin: a state-changing request (anything but GET/HEAD/OPTIONS) that carries an Origin
 *   must come from the server's own origin or an allow-listed one; while bound to loopback
 *   without an allow-list, same-origin also means a loopback origin.
 * Requests without Origin (curl, server-side clients) pass the Origin check.
 */
export function rejectReason(
  req: IncomingMessage,
  options: HostGuardOptions,
  upgrade = false,
  acceptsHost: HostCheck = checkHost,
): string | undefined {
  const bound = options.boundHost();
  const hostHeader = req.headers.host;
  if (!hostHeader) return "Forbidden: missing Host header";
  if (!acceptsHost(hostHeader, bound, options.allowedHosts)) {
    return "Forbidden: possible DNS-rebinding request";
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
    if (
      !isLoopbackHost(bound) ||
      isLoopbackHost(hostnameOf(originHost)) ||
      options.allowedHosts.includes(hostnameOf(originHost))
    )
      return undefined;
  }
  return "Forbidden: origin not allowed";
}

/** Whether a Host header may reach a server bound to `bound` (see `isAcceptedHost`). */
type HostCheck = (hostHeader: string, bound: string | undefined, allowedHosts: readonly string[]) => boolean;

function checkHost(hostHeader: string, bound: string | undefined, allowedHosts: readonly string[]): boolean {
  return isAcceptedHost(hostnameOf(hostHeader), bound, allowedHosts);
}

/**
 * `checkHost` remembering its last accepted Host header: clients send the same one on every
 * request. Not on a wildcard bind, whose answer depends on the machine's current interfaces.
 */
function lastHostMemo(): HostCheck {
  let lastHeader: string | undefined;
  let lastBound: string | undefined;
  return (hostHeader, bound, allowedHosts) => {
    if (hostHeader === lastHeader && bound === lastBound) return true;
    const accepted = checkHost(hostHeader, bound, allowedHosts);
    if (accepted && !isWildcardHost(bound)) {
      lastHeader = hostHeader;
      lastBound = bound;
    }
    return accepted;
  };
}

/** Express middleware answering 403 JSON for requests `rejectReason` refuses. */
export function hostGuard(options: HostGuardOptions): RequestHandler {
  const acceptsHost = lastHostMemo();
  return (req, res, next) => {
    const reason = rejectReason(req, options, false, acceptsHost);
    if (!reason) return next();
    sendJson(res, 403, { error: reason, detail: reason, code: "FORBIDDEN" });
  };
}
