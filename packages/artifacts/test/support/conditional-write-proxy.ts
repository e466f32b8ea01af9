import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import type { AddressInfo } from "node:net";

/**
 * s3rver ignores `If-None-Match: *` on writes; AWS S3 answers 412 PreconditionFailed when the
 * key exists. This proxy sits in front of s3rver on 127.0.0.1 and adds exactly that rule, so
 * two service instances (two processes, two replicas) racing for one version number can be
 * tested for real. Everything else is forwarded byte for byte (signatures stay valid).
 */
export interface ConditionalWriteProxy {
  endpoint: string;
  /** How many conditional writes were refused with 412. */
  readonly refused: number;
  close(): Promise<void>;
}

export async function startConditionalWriteProxy(upstream: string): Promise<ConditionalWriteProxy> {
  const target = new URL(upstream);
  const locks = new Map<string, Promise<void>>();
  let refused = 0;

  const forward = (req: IncomingMessage, res: ServerResponse, body?: Buffer): Promise<void> =>
    new Promise((resolve) => {
      const out = httpRequest(
        { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
          answer.on("end", resolve);
          answer.on("error", resolve);
        },
      );
      out.on("error", () => {
        res.writeHead(502).end();
        resolve();
      });
      if (body !== undefined) out.end(body);
      else req.pipe(out);
    });

  const exists = (path: string): Promise<boolean> =>
    new Promise((resolve, reject) => {
      const head = httpRequest({ host: target.hostname, port: target.port, method: "HEAD", path }, (answer) => {
        answer.resume();
        resolve(answer.statusCode === 200);
      });
      head.on("error", reject);
      head.end();
    });

  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://proxy");
    const isPartUpload = url.searchParams.has("partNumber");
    const conditional =
      req.headers["if-none-match"] === "*" &&
      !isPartUpload &&
      (req.method === "PUT" || (req.method === "POST" && url.searchParams.has("uploadId")));
    if (!conditional) {
      void forward(req, res);
      return;
    }
    // Check and write under one lock per key, like S3's own atomic conditional write.
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const key = url.pathname;
      const previous = locks.get(key) ?? Promise.resolve();
      const current = previous.then(async () => {
        if (await exists(key)) {
          refused++;
          res.writeHead(412, { "content-type": "application/xml" });
          res.end(
            `<?xml version="1.0" encoding="UTF-8"?><Error><Code>PreconditionFailed</Code><Message>At least one of ` +
              `the pre-conditions you specified did not hold</Message><Condition>If-None-Match</Condition></Error>`,
          );
          return;
        }
        await forward(req, res, Buffer.concat(chunks));
      });
      locks.set(
        key,
        current.catch(() => undefined),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    get refused() {
      return refused;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
