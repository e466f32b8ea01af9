import { deserialize, serialize, type Document } from "bson";

/** Opcodes of the MongoDB wire protocol that the test server speaks. */
export const OpCode = {
  REPLY: 1,
  QUERY: 2004,
  COMPRESSED: 2012,
  MSG: 2013,
} as const;

/** OP_MSG flag bits. */
export const MsgFlag = {
  CHECKSUM_PRESENT: 1 << 0,
  MORE_TO_COME: 1 << 1,
  EXHAUST_ALLOWED: 1 << 16,
} as const;

const HEADER_SIZE = 16;
/** The server refuses anything larger (the driver's own default limit is 48 MB). */
export const MAX_MESSAGE_SIZE = 48_000_000;

export interface MessageHeader {
  messageLength: number;
  requestId: number;
  responseTo: number;
  opCode: number;
}

/** A decoded client request: the command document with kind-1 sequences folded in. */
export type WireRequest =
  | { kind: "msg"; header: MessageHeader; flags: number; command: Document }
  | { kind: "query"; header: MessageHeader; collection: string; command: Document };

/** A malformed frame: the connection is closed, as a real server does. */
export class WireProtocolError extends Error {}

/** Splits a byte stream into whole messages; keeps the unfinished tail between chunks. */
export class MessageFramer {
  private buffered: Buffer = Buffer.alloc(0);

  push(chunk: Buffer): Buffer[] {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    const messages: Buffer[] = [];
    while (this.buffered.length >= 4) {
      const length = this.buffered.readInt32LE(0);
      if (length < HEADER_SIZE || length > MAX_MESSAGE_SIZE)
        throw new WireProtocolError(`invalid message length ${length}`);
      if (this.buffered.length < length) break;
      messages.push(this.buffered.subarray(0, length));
      this.buffered = this.buffered.subarray(length);
    }
    return messages;
  }
}

function readHeader(message: Buffer): MessageHeader {
  return {
    messageLength: message.readInt32LE(0),
    requestId: message.readInt32LE(4),
    responseTo: message.readInt32LE(8),
    opCode: message.readInt32LE(12),
  };
}

function readCString(buffer: Buffer, offset: number): { value: string; next: number } {
  const end = buffer.indexOf(0, offset);
  if (end < 0) throw new WireProtocolError("unterminated C string");
  return { value: buffer.toString("utf8", offset, end), next: end + 1 };
}

function readDocument(buffer: Buffer, offset: number): { doc: Document; next: number } {
  if (offset + 4 > buffer.length) throw new WireProtocolError("truncated document");
  const size = buffer.readInt32LE(offset);
  if (size < 5 || offset + size > buffer.length) throw new WireProtocolError("document size out of bounds");
  return { doc: deserialize(buffer.subarray(offset, offset + size)), next: offset + size };
}

/** Decodes one framed message (OP_MSG or legacy OP_QUERY). */
export function decodeRequest(message: Buffer): WireRequest {
  const header = readHeader(message);
  if (header.opCode === OpCode.MSG) {
    const flags = message.readUInt32LE(HEADER_SIZE);
    // A trailing CRC-32C is only there to be checked; loopback TCP needs no second checksum.
    const end = flags & MsgFlag.CHECKSUM_PRESENT ? message.length - 4 : message.length;
    let offset = HEADER_SIZE + 4;
    let command: Document | undefined;
    const sequences: Record<string, Document[]> = {};
    while (offset < end) {
      const kind = message.readUInt8(offset);
      offset += 1;
      if (kind === 0) {
        const { doc, next } = readDocument(message, offset);
        command = doc;
        offset = next;
      } else if (kind === 1) {
        const size = message.readInt32LE(offset);
        const sectionEnd = offset + size;
        if (sectionEnd > end) throw new WireProtocolError("document sequence out of bounds");
        const { value: identifier, next } = readCString(message, offset + 4);
        const docs: Document[] = [];
        let at = next;
        while (at < sectionEnd) {
          const read = readDocument(message, at);
          docs.push(read.doc);
          at = read.next;
        }
        sequences[identifier] = docs;
        offset = sectionEnd;
      } else {
        throw new WireProtocolError(`unknown OP_MSG section kind ${kind}`);
      }
    }
    if (!command) throw new WireProtocolError("OP_MSG without a body section");
    for (const [identifier, docs] of Object.entries(sequences)) command[identifier] = docs;
    return { kind: "msg", header, flags, command };
  }
  if (header.opCode === OpCode.QUERY) {
    const { value: collection, next } = readCString(message, HEADER_SIZE + 4);
    // numberToSkip and numberToReturn (8 bytes) do not matter for commands.
    const { doc } = readDocument(message, next + 8);
    // Legacy drivers wrap the command as { $query: {...}, $readPreference: ... }.
    const command = (doc.$query as Document | undefined) ?? doc;
    return { kind: "query", header, collection, command };
  }
  if (header.opCode === OpCode.COMPRESSED) throw new WireProtocolError("compression was not negotiated");
  throw new WireProtocolError(`unsupported opcode ${header.opCode}`);
}

function encodeHeader(length: number, requestId: number, responseTo: number, opCode: number): Buffer {
  const header = Buffer.alloc(HEADER_SIZE);
  header.writeInt32LE(length, 0);
  header.writeInt32LE(requestId, 4);
  header.writeInt32LE(responseTo, 8);
  header.writeInt32LE(opCode, 12);
  return header;
}

/** An OP_MSG reply with one body section. */
export function encodeMsgReply(requestId: number, responseTo: number, body: Document): Buffer {
  const doc = serialize(body);
  const flagsAndKind = Buffer.alloc(5);
  flagsAndKind.writeUInt32LE(0, 0);
  flagsAndKind.writeUInt8(0, 4);
  const length = HEADER_SIZE + flagsAndKind.length + doc.length;
  return Buffer.concat([encodeHeader(length, requestId, responseTo, OpCode.MSG), flagsAndKind, doc]);
}

/** An OP_REPLY (answer to a legacy OP_QUERY) carrying one document. */
export function encodeLegacyReply(requestId: number, responseTo: number, body: Document): Buffer {
  const doc = serialize(body);
  const fields = Buffer.alloc(20);
  fields.writeInt32LE(0, 0); // responseFlags
  fields.writeBigInt64LE(0n, 4); // cursorID
  fields.writeInt32LE(0, 12); // startingFrom
  fields.writeInt32LE(1, 16); // numberReturned
  const length = HEADER_SIZE + fields.length + doc.length;
  return Buffer.concat([encodeHeader(length, requestId, responseTo, OpCode.REPLY), fields, doc]);
}
