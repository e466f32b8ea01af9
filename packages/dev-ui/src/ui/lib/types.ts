/** The wire shapes of http-api.md section 2 that the UI reads (camelCase, all optional where servers differ). */

export interface InlineData {
  mimeType: string;
  data: string;
  displayName?: string;
}

export interface FunctionCall {
  id?: string;
  name: string;
  args?: Record<string, unknown>;
}

export interface FunctionResponse {
  id?: string;
  name: string;
  response?: Record<string, unknown>;
}

export interface Part {
  text?: string;
  thought?: boolean;
  inlineData?: InlineData;
  fileData?: { mimeType?: string; fileUri: string; displayName?: string };
  functionCall?: FunctionCall;
  functionResponse?: FunctionResponse;
  executableCode?: { language?: string; code: string };
  codeExecutionResult?: { outcome?: string; output?: string };
}

export interface Content {
  role?: string;
  parts?: Part[];
}

export type UsageMetadata = Record<string, unknown>;

export interface AgentEvent {
  id: string;
  invocationId?: string;
  author?: string;
  branch?: string;
  timestamp?: number;
  content?: Content;
  actions?: {
    stateDelta?: Record<string, unknown>;
    artifactDelta?: Record<string, number>;
    transferToAgent?: string;
    requestedToolConfirmations?: Record<string, unknown>;
    escalate?: boolean;
    [key: string]: unknown;
  };
  longRunningToolIds?: string[];
  partial?: boolean;
  turnComplete?: boolean;
  interrupted?: boolean;
  errorCode?: string;
  errorMessage?: string;
  usageMetadata?: UsageMetadata;
  inputTranscription?: { text?: string; finished?: boolean };
  outputTranscription?: { text?: string; finished?: boolean };
  [key: string]: unknown;
}

export interface Session {
  id: string;
  appName: string;
  userId: string;
  state: Record<string, unknown>;
  events: AgentEvent[];
  lastUpdateTime: number;
}

export interface Span {
  name: string;
  span_id: string | number;
  trace_id: string | number;
  parent_span_id?: string | number | null;
  start_time: number;
  end_time: number;
  attributes: Record<string, unknown>;
}
