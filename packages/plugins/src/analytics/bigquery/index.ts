export {
  BigQueryAnalyticsSink,
  BigQuerySinkError,
  type BigQueryAnalyticsSinkOptions,
} from "./bigquery-analytics-sink.js";
