// Hot reload end to end: the real `agentkit web` process on a temporary agents directory, its
// TypeScript and YAML apps edited, broken and fixed while it serves, observed over HTTP only.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { askOnce, startCli, tempAgentsDir, type CliProcess, type RunAnswer } from "./support/cli-process.js";

const agents = tempAgentsDir("agentkit-reload-e2e-");
const write = agents.write;
let cli: CliProcess | undefined;
let url = "";

/** An offline model answering every call with one fixed text. */
const answerModel = (text: string) => `import { BaseLlm, type LlmResponse } from "@agentkit/core";
class FixedModel extends BaseLlm {
  constructor() { super({ model: "fixed" }); }
  async *generateContentAsync(): AsyncGenerator<LlmResponse, void, void> {
    yield { content: { role: "model", parts: [{ text: ${JSON.stringify(text)} }] } };
  }
}
export const model = new FixedModel();
`;
const alphaAgent = (name: string) => `import { LlmAgent } from "@agentkit/core";
import { model } from "./model.js";
export const rootAgent = new LlmAgent({ name: ${JSON.stringify(name)}, model, instruction: "Answer." });
`;

beforeAll(async () => {
  write("alpha/agent.ts", alphaAgent("alpha_v1"));
  write("alpha/model.ts", answerModel("alpha says one"));
  write("beta/root_agent.yaml", "name: beta\nmodel_code: ./model.ts#model\ninstruction: Answer.\n");
  write("beta/model.ts", answerModel("beta says hello"));
  cli = startCli(
    [
      "web",
      agents.dir,
      "--port",
      "0",
      "--reload",
      "--session-service-uri",
      "memory://",
      "--artifact-service-uri",
      "memory://",
    ],
    { AGENTKIT_LOG_LEVEL: "warn" },
  );
  url = await cli.listening();
});

afterAll(async () => {
  await cli?.stop();
  agents.remove();
});

/** A fresh session and one /run on it. */
const ask = (app: string): Promise<RunAnswer> => askOnce(url, app);

/**
 * `ask` until the answer passes `done`: the server learns of an edit from its file watcher
 * (asynchronously, then a short debounce), so the first request after a save may still see the
 * old app. Bounded (about 10 s), and each try is a real request, never a blind sleep.
 */
async function askUntil(app: string, done: (answer: RunAnswer) => boolean): Promise<RunAnswer> {
  let answer = await ask(app);
  for (let i = 0; i < 100 && !done(answer); i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    answer = await ask(app);
  }
  return answer;
}
const saidIs = (expected: string[]) => (answer: RunAnswer) =>
  answer.status === 200 && JSON.stringify(said(answer)) === JSON.stringify(expected);
const said = (answer: RunAnswer) =>
  (answer.body as { author: string; content?: { parts?: { text?: string }[] } }[]).map(
    (e) => `${e.author}: ${e.content?.parts?.[0]?.text ?? ""}`,
  );

describe("hot reload under a running agentkit web", () => {
  it("serves both apps as first written", async () => {
    expect(said(await askUntil("alpha", saidIs(["alpha_v1: alpha says one"])))).toEqual(["alpha_v1: alpha says one"]);
    expect(said(await askUntil("beta", saidIs(["beta: beta says hello"])))).toEqual(["beta: beta says hello"]);
  });

  it("an edit of the agent file is used by the next request", async () => {
    write("alpha/agent.ts", alphaAgent("alpha_v2"));
    expect(said(await askUntil("alpha", saidIs(["alpha_v2: alpha says one"])))).toEqual(["alpha_v2: alpha says one"]);
  });

  it("an edit of a module the agent imports reloads the app too", async () => {
    write("alpha/model.ts", answerModel("alpha says two, after the edit"));
    expect(said(await askUntil("alpha", saidIs(["alpha_v2: alpha says two, after the edit"])))).toEqual([
      "alpha_v2: alpha says two, after the edit",
    ]);
  });

  it("a broken file: that app answers a JSON error naming the file, the other app keeps serving", async () => {
    write("alpha/agent.ts", `${alphaAgent("alpha_v3")}\nexport const broken = ;\n`);
    const broken = await askUntil("alpha", (a) => a.status === 500);
    expect(broken.status).toBe(500);
    const error = broken.body as { error: string; code: string };
    expect(error.code).toBe("CONFIGURATION_ERROR");
    expect(error.error).toContain("alpha/agent.ts");
    expect(said(await askUntil("beta", saidIs(["beta: beta says hello"])))).toEqual(["beta: beta says hello"]);
    const apps = (await (await fetch(`${url}/list-apps`)).json()) as string[];
    expect(apps).toEqual(expect.arrayContaining(["alpha", "beta"]));

    write("beta/root_agent.yaml", "name: beta\nmodel_code: ./model.ts#model\ninstruction: [unclosed\n");
    const brokenYaml = await askUntil("beta", (a) => a.status !== 200);
    expect((brokenYaml.body as { error: string }).error).toMatch(/beta\/root_agent\.yaml.*YAML syntax error/);
  });

  it("fixing the files makes the apps work again, without a restart", async () => {
    write("alpha/agent.ts", alphaAgent("alpha_v4"));
    expect(said(await askUntil("alpha", saidIs(["alpha_v4: alpha says two, after the edit"])))).toEqual([
      "alpha_v4: alpha says two, after the edit",
    ]);
    write("beta/root_agent.yaml", "name: beta_fixed\nmodel_code: ./model.ts#model\ninstruction: Answer.\n");
    expect(said(await askUntil("beta", saidIs(["beta_fixed: beta says hello"])))).toEqual([
      "beta_fixed: beta says hello",
    ]);
    expect(cli!.child.exitCode).toBeNull();
  });
});
