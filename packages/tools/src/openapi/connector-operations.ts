import type { ParsedOperation } from "./openapi-spec.js";

/** Connection details the execute call routes by. */
export interface ConnectionDetails {
  name: string;
  serviceName: string;
  host: string;
}

/** One connector operation: its tool name, OpenAPI-style operation and the routing fields always sent. */
export interface ConnectorOperation {
  name: string;
  operation: ParsedOperation;
  fixedBody: Record<string, unknown>;
}

const ENTITY_OPERATIONS = {
  LIST: { op: "LIST_ENTITIES", verb: "list" },
  GET: { op: "GET_ENTITY", verb: "get" },
  CREATE: { op: "CREATE_ENTITY", verb: "create" },
  UPDATE: { op: "UPDATE_ENTITY", verb: "update" },
  DELETE: { op: "DELETE_ENTITY", verb: "delete" },
} as const;
export type EntityOperation = keyof typeof ENTITY_OPERATIONS;
export const ENTITY_OPERATION_NAMES = Object.keys(ENTITY_OPERATIONS) as EntityOperation[];

const str = (description: string) => ({ type: "string", description });
const payload = {
  type: "object",
  description: "The entity's fields (or the action's input), as the connector's schema names them.",
};

/** Arguments the model gives per operation kind (the rest of the execute payload is fixed). */
function bodySchema(kind: EntityOperation | "ACTION"): { properties: Record<string, unknown>; required: string[] } {
  switch (kind) {
    case "LIST":
      return {
        properties: {
          filterClause: str("WHERE-style filter, e.g. name = 'x'."),
          pageSize: { type: "integer" },
          pageToken: str("Token of the next page."),
        },
        required: [],
      };
    case "GET":
      return { properties: { entityId: str("Id of the entity.") }, required: ["entityId"] };
    case "CREATE":
      return { properties: { connectorInputPayload: payload }, required: ["connectorInputPayload"] };
    case "UPDATE":
      return {
        properties: {
          entityId: str("Id of the entity."),
          filterClause: str("Filter selecting the entities."),
          connectorInputPayload: payload,
        },
        required: ["connectorInputPayload"],
      };
    case "DELETE":
      return {
        properties: { entityId: str("Id of the entity."), filterClause: str("Filter selecting the entities.") },
        required: [],
      };
    case "ACTION":
      return { properties: { connectorInputPayload: payload }, required: [] };
  }
}

/**
 * The OpenAPI description of a connection's entity operations and actions: each becomes a
 * POST to the `ExecuteConnection` integration's execute endpoint, as ADK generates it.
 */
export function connectorOperations(
  executePath: string,
  connection: ConnectionDetails,
  entityOperations: Record<string, EntityOperation[]>,
  actions: string[],
): ConnectorOperation[] {
  const routing = { connectionName: connection.name, serviceName: connection.serviceName, host: connection.host };
  const make = (
    name: string,
    kind: EntityOperation | "ACTION",
    description: string,
    fixed: Record<string, unknown>,
  ): ConnectorOperation => {
    const { properties, required } = bodySchema(kind);
    return {
      name,
      fixedBody: { ...routing, ...fixed },
      operation: {
        method: "post",
        path: executePath,
        description,
        parameters: [],
        requestBody: {
          schema: { type: "object", properties, required },
          required: true,
          contentType: "application/json",
        },
      },
    };
  };
  const ops: ConnectorOperation[] = [];
  for (const [entity, kinds] of Object.entries(entityOperations)) {
    const list = kinds.length > 0 ? kinds : ENTITY_OPERATION_NAMES;
    for (const kind of list) {
      const { op, verb } = ENTITY_OPERATIONS[kind];
      ops.push(
        make(
          `${verb}_${snake(entity)}`,
          kind,
          `${verb[0]!.toUpperCase()}${verb.slice(1)} ${entity} records through connection ${connection.name}.`,
          { entity, operation: op },
        ),
      );
    }
  }
  for (const action of actions) {
    ops.push(
      make(snake(action), "ACTION", `Run the ${action} action of connection ${connection.name}.`, {
        action,
        operation: "EXECUTE_ACTION",
      }),
    );
  }
  return ops;
}

function snake(value: string): string {
  return value
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/[^A-Za-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "")
    .toLowerCase();
}
