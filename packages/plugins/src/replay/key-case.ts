// The field-name conversion lives in core (the eval results of @agentkit/server use it too).
export { camelToSnake, snakeToCamel, toCamelCase, toSnakeCase } from "@agentkit/core/internal";
