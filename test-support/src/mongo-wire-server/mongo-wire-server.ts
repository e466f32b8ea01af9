import { createServer, type Server, type Socket } from "node:net";
import type { Document } from "bson";
import { InMemoryDatabase } from "./in-memory-database.js";
import { decodeRequest, encodeLegacyReply, encodeMsgReply, MessageFramer, MsgFlag } from "./wire-protocol.js";

export interface MongoWireServerOptions {
  /** Port on 127.0.0.1 (default 0: a free port). */
  port?: number;
}

/**
 * A test-only MongoDB server speaking the wire protocol on 127.0.0.1, backed by an in-memory
 * database evaluated with mingo. The official driver connects to `server.uri`. It implements
 * what agentkit's services and the driver's CRUD, index, cursor and aggregation helpers need;
 * it has no transactions, change streams, authentication or durability.
 */
export class MongoWireServer {
  readonly database = new InMemoryDatabase();
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private nextRequestId = 1;
  private port = 0;

  /** Starts a server and waits until it listens. */
  static async start(options: MongoWireServerOptions = {}): Promise<MongoWireServer> {
    const server = new MongoWireServer();
    await server.listen(options.port ?? 0);
    return server;
  }

  /** `mongodb://127.0.0.1:<port>/?directConnection=true` (a single standalone server). */
  get uri(): string {
    if (!this.server) throw new Error("MongoWireServer is not listening");
    return `mongodb://127.0.0.1:${this.port}/?directConnection=true`;
  }

  /** How many connections are open right now. */
  get connectionCount(): number {
    return this.sockets.size;
  }

  private async listen(port: number): Promise<void> {
    const server = createServer((socket) => this.accept(socket));
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => {
        server.off("error", reject);
        resolve();
      });
    });
    const address = server.address();
    this.port = typeof address === "object" && address ? address.port : port;
    this.server = server;
  }

  private accept(socket: Socket): void {
    this.sockets.add(socket);
    socket.setNoDelay(true);
    const framer = new MessageFramer();
    socket.on("data", (chunk) => {
      try {
        for (const message of framer.push(chunk)) this.handle(socket, message);
      } catch {
        // A malformed frame ends the connection, as on a real server.
        socket.destroy();
      }
    });
    socket.on("error", () => socket.destroy());
    socket.on("close", () => this.sockets.delete(socket));
  }

  private handle(socket: Socket, message: Buffer): void {
    const request = decodeRequest(message);
    const db =
      request.kind === "msg" ? String(request.command.$db ?? "admin") : request.collection.replace(/\.\$cmd$/, "");
    const outcome = this.database.run(db, stripEnvelope(request.command));
    if ("closeConnection" in outcome) {
      socket.destroy();
      return;
    }
    if (socket.destroyed) return;
    const requestId = this.nextRequestId++;
    if (request.kind === "query") {
      socket.write(encodeLegacyReply(requestId, request.header.requestId, outcome.reply));
    } else if (!(request.flags & MsgFlag.MORE_TO_COME)) {
      // moreToCome from the client means "do not answer" (unacknowledged writes).
      socket.write(encodeMsgReply(requestId, request.header.requestId, outcome.reply));
    }
  }

  /** Stops listening and drops every connection. */
  async close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** Drops the fields that only steer the server (read preference, session, cluster time). */
function stripEnvelope(command: Document): Document {
  const { $readPreference: _rp, lsid: _lsid, $clusterTime: _ct, $db: _db, ...rest } = command;
  return rest;
}
