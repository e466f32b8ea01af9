import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** How an answer ended: every byte flushed to the socket, or the client closed the connection first. */
export type AnswerEnd = "finished" | "closed early";

export interface LargeBodyServerOptions {
  /** Status of every answer (default 200). */
  status?: number;
  /** Headers of every answer (default `content-type: application/json`). */
  headers?: Record<string, string>;
  /** Text before the filler, e.g. `{"pad":"`. */
  prefix?: string;
  /** `fillBytes` bytes of `a` between prefix and suffix. */
  fillBytes: number;
  /** Text after the filler, e.g. `"}`. */
  suffix?: string;
  /** Bytes per write (default 64 KiB); each waits for the socket to drain. */
  chunkBytes?: number;
  /** Send a `Content-Length` (default: chunked, without one). */
  contentLength?: boolean;
}

export interface LargeBodyServer {
  url: string;
  /** How the latest answer ended (waits for it). */
  lastAnswer(): Promise<AnswerEnd>;
  close(): Promise<void>;
}

/**
 * A 127.0.0.1 server (port 0) whose answer to every request is a large body written in chunks
 * with backpressure: a client that stops reading and closes leaves the answer "closed early",
 * one that reads it all sees "finished". Make the body much larger than socket buffers (tens of
 * MiB) so "closed early" proves the client cancelled it.
 */
export async function startLargeBodyServer(options: LargeBodyServerOptions): Promise<LargeBodyServer> {
  const prefix = Buffer.from(options.prefix ?? "");
  const suffix = Buffer.from(options.suffix ?? "");
  const chunkBytes = options.chunkBytes ?? 64 * 1024;
  const filler = Buffer.alloc(chunkBytes, "a");
  const answers: Promise<AnswerEnd>[] = [];
  const headers: Record<string, string> = { "content-type": "application/json", ...options.headers };
  if (options.contentLength) headers["content-length"] = String(prefix.length + options.fillBytes + suffix.length);
  const listening = await listen((req, res) => {
    answers.push(
      new Promise((resolve) => res.on("close", () => resolve(res.writableFinished ? "finished" : "closed early"))),
    );
    req.resume();
    req.once("end", async () => {
      res.writeHead(options.status ?? 200, headers);
      if (!(await write(res, prefix))) return;
      for (let left = options.fillBytes; left > 0; left -= chunkBytes) {
        if (!(await write(res, left >= chunkBytes ? filler : filler.subarray(0, left)))) return;
      }
      if (await write(res, suffix)) res.end();
    });
  });
  return {
    url: listening.url,
    lastAnswer: () => answers.at(-1) ?? Promise.reject(new Error("no request arrived")),
    close: listening.close,
  };
}

export interface SilentServer {
  url: string;
  close(): Promise<void>;
}

/** A 127.0.0.1 server (port 0) that takes every request and never answers it until `close`. */
export async function startSilentServer(): Promise<SilentServer> {
  return listen((req) => void req.resume());
}

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void) {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Writes one chunk; false once the client has gone (then nothing more is written). */
async function write(res: ServerResponse, chunk: Buffer): Promise<boolean> {
  if (res.destroyed) return false;
  if (chunk.length === 0 || res.write(chunk)) return !res.destroyed;
  await new Promise<void>((resolve) => {
    const done = () => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.on("drain", done);
    res.on("close", done);
  });
  return !res.destroyed;
}
