/** `agentkit help`: every command and flag, with its environment variable and default. */
export const HELP_TEXT = `agentkit: build, run and serve LLM agents.

Usage:
  agentkit web [agents_dir] [flags]         serve the agents of agents_dir with the dev UI at /dev-ui
  agentkit api-server [agents_dir] [flags]  serve the HTTP API only (no UI)
  agentkit run <agent_dir> [flags]          chat with one agent in the terminal
  agentkit eval <agents_dir|app_dir> <evalset file or id>[:case,...]... [eval flags]
                                            run eval sets against their app: a table of results,
                                            exit 1 when a case does not pass or a score regresses
  agentkit eval_set create <app_dir> <eval_set_id>
                                            create an empty eval set in the app's eval store
  agentkit eval_set add_case <app_dir> <eval_set_id> (--session <session.json> [--eval-id <id>] |
                           --scenarios <scenarios.json>)
                                            add a saved session's turns as a case, or each scenario
                                            of an ADK scenarios file as a simulated-user case
  agentkit conformance record <cases_dir> [--agents-dir <dir>]
                                            run each case folder's spec.yaml live and write
                                            generated-recordings.yaml and generated-session.yaml
  agentkit conformance test <cases_dir> [--agents-dir <dir>]
                                            replay each case and compare (exit 1 on a failure)
  agentkit help                             this text
  agentkit version                          the agentkit version

agents_dir (default "."): each subfolder is an app holding agent.ts / agent.js (exporting
rootAgent or an App) or root_agent.yaml. Folders starting with "." or "_" are not apps.

Eval flags (docs/evals.md):
  --config <test_config.json>    metrics and thresholds (ADK's "criteria"); default: a test_config.json
                                 beside the eval set file, else tool_trajectory_avg_score 1.0 and
                                 response_match_score 0.8
  --output <results.json>        write the results (ADK's EvalSetResult JSON, one per eval set)
  --junit <results.xml>          write JUnit XML for CI test reports
  --parallel <n>                 cases run at once (default 1)
  --baseline <previous.json>     compare scores with a previous --output file
  --max-regression <x>           largest allowed score drop against the baseline (default 0), or
                                 <metric>=<x> for one metric (repeatable)
Eval sets given by id are read from <agents_dir>/.agentkit/evals/<app>/eval_sets/ (where the dev UI
keeps them; with an agents directory write <app>/<eval_set_id>); results are also kept there.

Flags (web, api-server):
  --host <host>                  interface to bind (default 127.0.0.1; env AGENTKIT_HOST)
  --port <port>                  port (default 8000; 0 picks a free one; env AGENTKIT_PORT)
  --reload / --no-reload         reload an app when its files change (default: on for web, off for api-server)
  --no-warm-up                   load apps and their models only when a request needs them (env AGENTKIT_WARM_UP=0)
  --allow-origins <o1,o2>        enable CORS for these origins (repeatable; env AGENTKIT_ALLOW_ORIGINS)
  --log-level <level>            error | warn | info | debug (default info; env AGENTKIT_LOG_LEVEL)
  --log-format text|json         json: one JSON object a line (level, time, message, app, session,
                                 invocation ids where known; env AGENTKIT_LOG_FORMAT); known secrets
                                 (API keys, *_API_KEY / *_TOKEN variables, Bearer credentials) are masked
  --otel                         export traces, metrics and logs over OTLP/HTTP (JSON) (env AGENTKIT_OTEL=1) to
                                 OTEL_EXPORTER_OTLP_ENDPOINT (default http://localhost:4318) or the per-signal
                                 OTEL_EXPORTER_OTLP_{TRACES,METRICS,LOGS}_ENDPOINT; also read:
                                 OTEL_EXPORTER_OTLP_HEADERS, OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES,
                                 OTEL_{TRACES,METRICS,LOGS}_EXPORTER=none, OTEL_METRIC_EXPORT_INTERVAL
                                 (docs/deployment.md#telemetry)
  --otel-capture-content         also export prompts, responses and tool payloads in spans, credentials
                                 masked (default off; env OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true)
  --a2a                          also serve every app over A2A at /a2a/{app} (agent card at
                                 /a2a/{app}/.well-known/agent-card.json; env AGENTKIT_A2A=1)
  --dev-ui-dir <dir>             web: serve this built dev UI instead of agentkit's (for ADK's own:
                                 node_modules/@google/adk-devtools/dist/browser; env AGENTKIT_DEV_UI_DIR)
  --user-simulator-model <name>  web: the model playing the user of eval scenario cases (any registry name;
                                 default: each app's own agent model; env AGENTKIT_USER_SIMULATOR_MODEL)
  --allowed-hosts <h1,h2>        Host header names accepted besides the bound address: the names clients
                                 use to reach the server (repeatable; env AGENTKIT_ALLOWED_HOSTS)
Authentication (web, api-server; a non-loopback --host refuses to start without it):
  --auth none|api-key|jwt        who may call the server (default none; env AGENTKIT_AUTH); clients send
                                 Authorization: Bearer <key or JWT>; a principal may only touch its own
                                 user's sessions and runs unless it has the "admin" scope
  --api-keys-file <file>         api-key: one "<key> <userId> [scope…]" per line, # comments (env
                                 AGENTKIT_API_KEYS_FILE; or the entries in AGENTKIT_API_KEYS, ";" between them)
  --jwt-jwks-url <url>           jwt: the issuer's JWKS (https; env AGENTKIT_JWT_JWKS_URL), or
  --jwt-public-key-file <pem>    jwt: one PEM public key (env AGENTKIT_JWT_PUBLIC_KEY_FILE)
  --jwt-issuer <iss>             jwt: accepted iss, required (env AGENTKIT_JWT_ISSUER)
  --jwt-audience <aud>           jwt: accepted aud, required (env AGENTKIT_JWT_AUDIENCE)
  --jwt-user-claim <claim>       jwt: the claim holding the user id (default sub; env AGENTKIT_JWT_USER_CLAIM)
  --insecure-no-auth             listen on a non-loopback host without authentication anyway
                                 (env AGENTKIT_INSECURE_NO_AUTH=1)
Limit flags (web, api-server; sizes in bytes or like 20mb; 0 turns a count or timeout off;
env AGENTKIT_<FLAG>, e.g. AGENTKIT_BODY_LIMIT; docs/security.md#client-input-and-resource-limits):
  --body-limit <size>                  largest JSON body (default 20mb; larger is 413)
  --body-bytes-in-flight <size>        large bodies read at once, all requests (default 64mb; past it 413 + Retry-After)
  --max-json-depth <n>                 deepest JSON nesting of a body (default 64)
  --headers-timeout-ms <ms>            time to send the request headers (default 20000)
  --body-timeout-ms <ms>               time to send a body once the headers are in (default 60000; then 408)
  --request-timeout-ms <ms>            time to send a whole request (default 90000)
  --keep-alive-timeout-ms <ms>         idle time of a kept-alive connection between requests (default 5000)
  --max-connections-per-client <n>     open connections per client address (default 128; raise or 0 behind a proxy)
  --runs-per-user-per-minute <n>       runs one app user may start per minute (default 0: off; past it 429 + Retry-After)
  --runs-per-app-per-minute <n>        runs all users of one app may start per minute (default 0: off)
  --sse-write-timeout-ms <ms>          time a /run_sse frame waits for a client that stopped reading (default 30000; then the run is aborted)
  --live-max-sockets <n>               /run_live sockets in total (default 100; past it 503)
  --live-max-sockets-per-client <n>    /run_live sockets per client address (default 16; past it 429)
  --live-max-sockets-per-user <n>      /run_live sockets per app user (default 8; past it 429)
  --live-max-frame-bytes <size>        largest /run_live client frame (default 4mb; larger closes with 1009)
  --live-max-queued-frames <n>         frames a live socket holds for its run (default 64; past it closes with 1008)
  --live-max-queued-bytes <size>       bytes of such frames (default 8mb)
  --live-ping-interval-ms <ms>         ping of each /run_live socket; one that misses a pong is closed (default 30000)
Service flags (web, api-server, run):
  --session-service-uri <uri>    memory:// | sqlite:///abs/file.db | postgres://… | mongodb://… | agentengine://…
                                 (default: sqlite under <agents_dir>/.agentkit/; run: memory://; env AGENTKIT_SESSION_SERVICE_URI)
  --artifact-service-uri <uri>   memory:// | file:///abs/dir | s3://bucket/prefix
                                 (default: files under <agents_dir>/.agentkit/artifacts; run: memory://; env AGENTKIT_ARTIFACT_SERVICE_URI)
  --memory-service-uri <uri>     memory:// | mongodb://… (default memory://; env AGENTKIT_MEMORY_SERVICE_URI)
  --session-lock store|process   web, api-server: runs on one session wait for each other across replicas through
                                 the session store (postgres://, mongodb://; the default) or in this process only
                                 (env AGENTKIT_SESSION_LOCK; docs/deployment.md#several-replicas)
  --session-lock-wait-ms <ms>    how long a run waits for the store's lock (default 30000; then 409 SESSION_BUSY)
  --idle-memory-ms <ms>          web, api-server: once quiet this long, give back the memory a busy period grew (one full
                                 collection; default 30000, 0 turns it off; env AGENTKIT_IDLE_MEMORY_MS)

Models: agents name models as strings (gemini-*, gpt-*, o1…, claude-*, ollama/*, openai-compatible/*)
resolved with the SDKs' usual keys: GOOGLE_API_KEY / GEMINI_API_KEY, OPENAI_API_KEY,
ANTHROPIC_API_KEY, OLLAMA_HOST. S3 endpoints and credentials come from the AWS SDK's variables
(AWS_ENDPOINT_URL_S3, AWS_REGION, AWS_ACCESS_KEY_ID, ...).

Runtime (environment only):
  AGENTKIT_RUNTIME=source|tsx|dist
                                 source (default): the workspace packages' TypeScript on Node's
                                 own TypeScript support (compiled output cached on disk);
                                 tsx: the same through tsx (agents may also use .tsx,
                                 decorators, tsconfig paths), slower to start;
                                 dist: the built packages and CLI (run \`pnpm build\` first), faster
                                 to start; agents' TypeScript through Node's type stripping
                                 (erasable TypeScript only)
  AGENTKIT_STARTUP_TIMING=1      print where start-up time went to stderr
`;
