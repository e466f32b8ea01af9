export {
  PostgresAnalyticsSink,
  PostgresSinkError,
  type PostgresAnalyticsSinkOptions,
} from "./postgres-analytics-sink.js";
