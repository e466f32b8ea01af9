import { afterEach, describe, expect, it } from "@jest/globals";
import { InMemoryRunner, LlmAgent, getTextOf, type Content } from "@agentkit/core";
import { ScriptedModel } from "@agentkit/core/testing";
import { AdkMetadataKey, OutputMode, RemoteA2aAgent, type A2aTransportName } from "../src/index.js";
import { TRANSPORTS } from "./helpers.js";
import { startOurServer, type OurServer } from "./our-server.js";
import { collect } from "@agentkit/test-support/collect";

const transfer = () => ScriptedModel.functionCall("transfer_to_agent", { agent_name: "weather" });

const cases = TRANSPORTS.flatMap((t) => [true, false].map((streaming) => [t, streaming] as const));

describe.each(cases)(
  "RemoteA2aAgent as a sub-agent, talking to createA2aRouter (%s, streaming=%s)",
  (transport, streaming) => {
    let remote: OurServer | undefined;
    let runner: InMemoryRunner | undefined;
    afterEach(async () => {
      await runner?.close();
      await remote?.close();
      runner = undefined;
      remote = undefined;
    });

    const setup = async (
      remoteSteps: Parameters<typeof startOurServer>[0]["steps"],
      localSteps: number,
      outputMode = OutputMode.ARTIFACT_PER_EVENT,
    ) => {
      remote = await startOurServer({ steps: remoteSteps, outputMode });
      const weather = new RemoteA2aAgent({
        name: "weather",
        agentCard: remote.a2aUrl,
        streaming,
        preferredTransports: [transport as A2aTransportName],
      });
      const coordinator = new LlmAgent({
        name: "coordinator",
        model: new ScriptedModel({ steps: Array.from({ length: localSteps }, transfer) }),
        instruction: "Route weather questions to the weather agent.",
        subAgents: [weather],
      });
      runner = new InMemoryRunner({ agent: coordinator, appName: "local" });
      await runner.sessionService.createSession({ appName: "local", userId: "u", sessionId: "s" });
      return { remote, runner, weather };
    };
    const say = (r: InMemoryRunner, newMessage: string | Content) =>
      collect(r.runAsync({ userId: "u", sessionId: "s", newMessage }));

    it("transfers to the remote agent and continues the same remote session on the next turn", async () => {
      const { remote: server, runner: local } = await setup(
        [ScriptedModel.text("Remote says hi."), ScriptedModel.text("Remote again.")],
        2,
      );
      const first = await say(local, "hello there");
      const fromRemote = first.filter((e) => e.author === "weather" && !e.partial);
      expect(fromRemote.map((e) => getTextOf(e.content))).toEqual(["Remote says hi."]);
      // The remote model saw the user's message and the coordinator's hand-off as context.
      const firstRequest = JSON.stringify(server.model.requests[0]!.contents);
      expect(firstRequest).toContain("hello there");
      expect(firstRequest).toContain("[coordinator] called tool `transfer_to_agent`");

      const second = await say(local, "and tomorrow?");
      expect(second.filter((e) => e.author === "weather" && !e.partial).map((e) => getTextOf(e.content))).toEqual([
        "Remote again.",
      ]);
      const contextIds = new Set(
        [...first, ...second]
          .filter((e) => e.author === "weather")
          .map((e) => e.customMetadata?.[AdkMetadataKey.CONTEXT_ID]),
      );
      expect(contextIds.size).toBe(1);
      // One remote session holds both turns; the second turn sent only what was new.
      const sessions = await server.runner.sessionService.listSessions({
        appName: "weather_app",
        userId: `A2A_USER_${[...contextIds][0]}`,
      });
      expect(sessions.sessions).toHaveLength(1);
      const remoteSession = await server.runner.sessionService.getSession({
        appName: "weather_app",
        userId: `A2A_USER_${[...contextIds][0]}`,
        sessionId: sessions.sessions[0]!.id,
      });
      const userTexts = remoteSession!.events.filter((e) => e.author === "user").map((e) => getTextOf(e.content));
      expect(userTexts).toHaveLength(2);
      expect(userTexts[1]).toContain("and tomorrow?");
      expect(userTexts[1]).not.toContain("hello there");
    });

    it("carries a remote tool call and its result back as function call and response parts", async () => {
      const { runner: local } = await setup(
        [ScriptedModel.functionCall("get_weather", { city: "Oslo" }, "call-1"), ScriptedModel.text("Sunny in Oslo.")],
        1,
        OutputMode.ARTIFACT_PER_EVENT,
      );
      const events = (await say(local, "weather in Oslo?")).filter((e) => e.author === "weather" && !e.partial);
      const parts = events.flatMap((e) => e.content?.parts ?? []);
      expect(parts).toEqual([
        { functionCall: { id: "call-1", name: "get_weather", args: { city: "Oslo" } } },
        { functionResponse: { id: "call-1", name: "get_weather", response: { city: "Oslo", weather: "sunny" } } },
        { text: "Sunny in Oslo." },
      ]);
    });

    it("carries files both ways: inline bytes as raw parts, file URIs as url parts", async () => {
      const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 255]).toString("base64");
      const reply = {
        role: "model",
        parts: [
          { text: "Here:" },
          { inlineData: { data: png, mimeType: "image/png" } },
          { fileData: { fileUri: "https://example.com/r.pdf", mimeType: "application/pdf" } },
        ],
      };
      const { remote: server, runner: local } = await setup([{ content: reply }], 1);
      const question: Content = {
        role: "user",
        parts: [{ text: "look" }, { inlineData: { data: png, mimeType: "image/png", displayName: "in.png" } }],
      };
      const events = (await say(local, question)).filter((e) => e.author === "weather" && !e.partial);
      expect(events.flatMap((e) => e.content?.parts ?? [])).toEqual(reply.parts);
      const sent = server.model.requests[0]!.contents.flatMap((c) => c.parts ?? []);
      expect(sent).toContainEqual({ inlineData: { data: png, mimeType: "image/png", displayName: "in.png" } });
    });

    it("surfaces a remote long-running call, then resumes the remote task with the client's function response", async () => {
      const { remote: server, runner: local } = await setup(
        [ScriptedModel.functionCall("ask_approval", { amount: 5 }, "call-9"), ScriptedModel.text("Payment approved.")],
        1,
      );
      const first = await say(local, "pay 5");
      const pendingCall = first.find((e) => e.author === "weather" && e.longRunningToolIds?.includes("call-9"));
      expect(pendingCall?.content?.parts?.[0]?.functionCall).toMatchObject({ id: "call-9", name: "ask_approval" });
      expect(first.at(-1)!.customMetadata?.[AdkMetadataKey.TASK_STATE]).toBe("input-required");
      const taskId = first.at(-1)!.customMetadata?.[AdkMetadataKey.TASK_ID];

      const answer: Content = {
        role: "user",
        parts: [{ functionResponse: { id: "call-9", name: "ask_approval", response: { approved: true } } }],
      };
      const second = await say(local, answer);
      expect(second.filter((e) => e.author === "weather" && !e.partial).map((e) => getTextOf(e.content))).toEqual([
        "Payment approved.",
      ]);
      expect(second.at(-1)!.customMetadata?.[AdkMetadataKey.TASK_ID]).toBe(taskId);
      // The remote model got the approval as the function response of its pending call.
      expect(JSON.stringify(server.model.requests[1]!.contents)).toContain('"approved":true');
    });
  },
);
