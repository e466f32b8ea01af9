import { createServer, type Server, type Socket } from "node:net";
import type { Document } from "bson";
import { InMemoryDatabase } from "./in-memory-database.js";
import {
  decodeRequest,
  encodeLegacyReply,
  encodeMsgReply,
  MessageFramer,
  MsgFlag,
  type WireRequest,
} from "./wire-protocol.js";

export interface MongoWireServerOptions {
  /** Port on 127.0.0.1 (default 0: a free port). */
  port?: number;
}

/**
 * Replies the server withholds (`MongoWireServer.holdReplies`): a server that stops answering, as
 * a hung process or a silent network looks to the client. Counts, never clocks, so tests can wait
 * for what happened without timing assumptions.
 */
export interface ReplyHold {
  /** Resolves once `count` commands (in all, since the hold began) are withheld (default 1). */
  held(count?: number): Promise<void>;
  /** Resolves once the client has closed the connections of `count` withheld commands (default 1). */
  closed(count?: number): Promise<void>;
  /**
   * Answers again: the withheld commands whose connection is still open run and are answered, in
   * the order they came; those whose connection the client closed meanwhile are dropped (never run).
   * Returns how many of each.
   */
  release(): { answered: number; dropped: number };
}

/** One withheld command, and whether the client closed its connection since. */
interface HeldMessage {
  socket: Socket;
  message: Buffer;
  closed: boolean;
}

class Hold implements ReplyHold {
  readonly messages: HeldMessage[] = [];
  private closedCount = 0;
  private readonly waiters: { done: () => boolean; resolve: () => void }[] = [];

  constructor(
    private readonly matches: (name: string) => boolean,
    private readonly end: (hold: Hold) => { answered: number; dropped: number },
  ) {}

  /** True when this message must wait: it matches, or an earlier one of its connection waits. */
  takes(socket: Socket, name: string): boolean {
    return this.matches(name) || this.messages.some((m) => m.socket === socket && !m.closed);
  }

  add(socket: Socket, message: Buffer): void {
    this.messages.push({ socket, message, closed: false });
    if (socket.destroyed) this.socketClosed(socket);
    else this.settle();
  }

  socketClosed(socket: Socket): void {
    for (const m of this.messages) {
      if (m.socket !== socket || m.closed) continue;
      m.closed = true;
      this.closedCount += 1;
    }
    this.settle();
  }

  held(count = 1): Promise<void> {
    return this.wait(() => this.messages.length >= count);
  }

  closed(count = 1): Promise<void> {
    return this.wait(() => this.closedCount >= count);
  }

  release(): { answered: number; dropped: number } {
    return this.end(this);
  }

  private wait(done: () => boolean): Promise<void> {
    if (done()) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ done, resolve }));
  }

  private settle(): void {
    for (const waiter of [...this.waiters]) {
      if (!waiter.done()) continue;
      this.waiters.splice(this.waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  }
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
  private hold: Hold | undefined;

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

  /**
   * Stops answering: from now on the commands named in `commands` (default: every command,
   * handshakes included) are read but neither run nor answered, and their connections stay open,
   * until `release()`. A connection with a withheld command has whatever it sends next withheld
   * behind it. One hold at a time.
   */
  holdReplies(commands?: readonly string[]): ReplyHold {
    if (this.hold) throw new Error("MongoWireServer: replies are already held");
    const names = commands ? new Set(commands) : undefined;
    const hold = new Hold(
      (name) => !names || names.has(name),
      (ended) => {
        if (this.hold === ended) this.hold = undefined;
        let answered = 0;
        let dropped = 0;
        for (const { socket, message, closed } of ended.messages.splice(0)) {
          if (closed || socket.destroyed) {
            dropped += 1;
            continue;
          }
          answered += 1;
          try {
            this.receive(socket, message);
          } catch {
            socket.destroy();
          }
        }
        return { answered, dropped };
      },
    );
    this.hold = hold;
    return hold;
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
        for (const message of framer.push(chunk)) this.receive(socket, message);
      } catch {
        // A malformed frame ends the connection, as on a real server.
        socket.destroy();
      }
    });
    socket.on("error", () => socket.destroy());
    socket.on("close", () => {
      this.sockets.delete(socket);
      this.hold?.socketClosed(socket);
    });
  }

  /** Handles one message, or withholds it while replies are held. */
  private receive(socket: Socket, message: Buffer): void {
    const request = decodeRequest(message);
    if (this.hold?.takes(socket, Object.keys(request.command)[0] ?? "")) {
      this.hold.add(socket, message);
      return;
    }
    this.handle(socket, request);
  }

  private handle(socket: Socket, request: WireRequest): void {
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
    this.hold = undefined;
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
