// The HTTP load generator of the benchmarks (in the benchmark's process, keep-alive
// connections, `concurrency` flows in flight). One flow = `POST /apps/bench/users/u/sessions`
// then `POST /run` (or `/run_sse`, read to the end) with the same bodies for every server.
import { Agent, request } from "node:http";
import { hrtime } from "node:process";

export type Route = "/run" | "/run_sse";

function httpCall(agent: Agent, url: string, method: string, body: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method,
        agent,
        headers: { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) },
      },
      (res) => {
        let data = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => (data += c));
        res.on("end", () =>
          res.statusCode === 200
            ? resolve(data)
            : reject(new Error(`${method} ${url}: ${res.statusCode} ${data.slice(0, 300)}`)),
        );
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** One flow: a new session, then one run on it; checks the agent's answer came back. */
export async function flow(agent: Agent, url: string, route: Route = "/run", sessionId?: string): Promise<string> {
  const id =
    sessionId ??
    (JSON.parse(await httpCall(agent, `${url}/apps/bench/users/u/sessions`, "POST", "{}")) as { id: string }).id;
  const body = JSON.stringify({
    appName: "bench",
    userId: "u",
    sessionId: id,
    newMessage: { role: "user", parts: [{ text: "q" }] },
  });
  const answer = await httpCall(agent, `${url}${route}`, "POST", body);
  if (!answer.includes("The answer is 42.")) throw new Error(`unexpected answer: ${answer.slice(0, 300)}`);
  return id;
}

/** A session created over HTTP (for runs on one session). */
export async function createSession(agent: Agent, url: string): Promise<string> {
  return (JSON.parse(await httpCall(agent, `${url}/apps/bench/users/u/sessions`, "POST", "{}")) as { id: string }).id;
}

export interface LoadResult {
  flows: number;
  seconds: number;
  flowsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
}

/**
 * Runs flows with `concurrency` in flight until `seconds` have passed or `flows` have been
 * started (whichever is given; both: the first reached).
 */
export async function runLoad(
  url: string,
  options: { concurrency: number; seconds?: number; flows?: number; route?: Route },
): Promise<LoadResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: options.concurrency });
  const latencies: number[] = [];
  const deadline = options.seconds ? hrtime.bigint() + BigInt(Math.round(options.seconds * 1e9)) : undefined;
  let started = 0;
  const more = () =>
    (options.flows === undefined || started < options.flows) && (deadline === undefined || hrtime.bigint() < deadline);
  const t0 = hrtime.bigint();
  try {
    await Promise.all(
      Array.from({ length: options.concurrency }, async () => {
        while (more()) {
          started++;
          const s = hrtime.bigint();
          await flow(agent, url, options.route);
          latencies.push(Number(hrtime.bigint() - s) / 1e6);
        }
      }),
    );
  } finally {
    agent.destroy();
  }
  const seconds = Number(hrtime.bigint() - t0) / 1e9;
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? 0;
  return {
    flows: latencies.length,
    seconds,
    flowsPerSecond: latencies.length / seconds,
    p50Ms: pct(50),
    p99Ms: pct(99),
  };
}
