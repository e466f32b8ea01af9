// A MongoDB wire-protocol test server (mingo + bson): `@agentkit/test-support/mongodb`.
export { MongoWireServer, type MongoWireServerOptions, type ReplyHold } from "./mongo-wire-server.js";
export { InMemoryDatabase, type CommandOutcome, type FailPoint } from "./in-memory-database.js";
export { CommandError, InMemoryCollection, type IndexSpec } from "./in-memory-collection.js";
export {
  decodeRequest,
  encodeLegacyReply,
  encodeMsgReply,
  MessageFramer,
  MsgFlag,
  OpCode,
  WireProtocolError,
  type WireRequest,
} from "./wire-protocol.js";
