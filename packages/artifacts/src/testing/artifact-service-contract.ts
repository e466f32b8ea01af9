import { AgentKitError, nowSeconds, type BaseArtifactService, type Part } from "@agentkit/core";
import { checkContractTestApi, useContractSubject } from "@agentkit/core/testing";
import type { ContractFactory, ContractTestApi } from "./contract-harness.js";

/**
 * The behaviour every `BaseArtifactService` must have. Call it at the top level of a test file
 * with your framework's test functions (`{ describe, it, expect, beforeEach, afterEach }`: jest,
 * vitest, or node:test with `assertExpect`); `factory` runs before each test and `cleanup` (or
 * `service.close()`) after it. Each test uses its own unique app name, so backends may share
 * one store across tests.
 */
export function runArtifactServiceContract(
  name: string,
  factory: ContractFactory<BaseArtifactService>,
  test: ContractTestApi,
): void {
  const { describe, it, expect } = checkContractTestApi("runArtifactServiceContract", test);
  describe(`${name} (artifact service contract)`, () => {
    const ctx = useContractSubject(factory, test);
    const scope = (sessionId = "s1", userId = "u1") => ({ appName: ctx.appName, userId, sessionId });
    const png = (bytes: number[]): Part => ({
      inlineData: { mimeType: "image/png", data: Buffer.from(bytes).toString("base64") },
    });
    const save = (
      filename: string,
      artifact: Part,
      sessionId = "s1",
      userId = "u1",
      customMetadata?: Record<string, unknown>,
    ) =>
      ctx.service.saveArtifact({
        ...scope(sessionId, userId),
        filename,
        artifact,
        ...(customMetadata ? { customMetadata } : {}),
      });
    const expectCode = async (promise: Promise<unknown>, code: string) => {
      await expect(promise).rejects.toBeInstanceOf(AgentKitError);
      await expect(promise).rejects.toMatchObject({ code });
    };

    describe("save and load", () => {
      it("numbers versions from 0 per filename and loads the latest or a given version", async () => {
        expect(await save("a.png", png([1]))).toBe(0);
        expect(await save("a.png", png([2]))).toBe(1);
        expect(await save("b.txt", { text: "b" })).toBe(0);
        expect(await save("a.png", png([3]))).toBe(2);
        expect(await ctx.service.loadArtifact({ ...scope(), filename: "a.png" })).toEqual(png([3]));
        expect(await ctx.service.loadArtifact({ ...scope(), filename: "a.png", version: 0 })).toEqual(png([1]));
        expect(await ctx.service.loadArtifact({ ...scope(), filename: "a.png", version: 1 })).toEqual(png([2]));
        expect(await ctx.service.listVersions({ ...scope(), filename: "a.png" })).toEqual([0, 1, 2]);
      });

      it("returns undefined for a missing filename or version and [] versions for an unknown file", async () => {
        await save("a.png", png([1]));
        expect(await ctx.service.loadArtifact({ ...scope(), filename: "missing.png" })).toBeUndefined();
        expect(await ctx.service.loadArtifact({ ...scope(), filename: "a.png", version: 7 })).toBeUndefined();
        expect(await ctx.service.listVersions({ ...scope(), filename: "missing.png" })).toEqual([]);
        expect(await ctx.service.listArtifactVersions({ ...scope(), filename: "missing.png" })).toEqual([]);
        expect(await ctx.service.getArtifactVersion({ ...scope(), filename: "missing.png" })).toBeUndefined();
      });

      it("round-trips binary inline data, file references and text exactly", async () => {
        const bytes = Array.from({ length: 256 }, (_, i) => i);
        const big = Buffer.alloc(1024 * 1024, 7).toString("base64");
        const parts: Record<string, Part> = {
          "bytes.bin": {
            inlineData: {
              mimeType: "application/octet-stream",
              data: Buffer.from(bytes).toString("base64"),
              displayName: "bytes",
            },
          },
          "big.bin": { inlineData: { mimeType: "application/octet-stream", data: big } },
          "ref.pdf": { fileData: { fileUri: "gs://bucket/doc.pdf", mimeType: "application/pdf" } },
          "note.txt": { text: "héllo ✓\nline 2" },
        };
        for (const [filename, part] of Object.entries(parts)) await save(filename, part);
        for (const [filename, part] of Object.entries(parts)) {
          expect(await ctx.service.loadArtifact({ ...scope(), filename })).toEqual(part);
        }
        const loaded = await ctx.service.loadArtifact({ ...scope(), filename: "bytes.bin" });
        expect([...Buffer.from(loaded!.inlineData!.data!, "base64")]).toEqual(bytes);
      });

      it("stores copies: changing the saved or the loaded part does not change the store", async () => {
        const part: Part = { inlineData: { mimeType: "text/plain", data: Buffer.from("one").toString("base64") } };
        await save("f.txt", part);
        part.inlineData!.data = Buffer.from("two").toString("base64");
        const loaded = await ctx.service.loadArtifact({ ...scope(), filename: "f.txt" });
        loaded!.inlineData!.mimeType = "changed";
        const again = await ctx.service.loadArtifact({ ...scope(), filename: "f.txt" });
        expect(again).toEqual({ inlineData: { mimeType: "text/plain", data: Buffer.from("one").toString("base64") } });
      });
    });

    describe("scopes", () => {
      it("keeps session files to their session, user and app", async () => {
        await save("doc.txt", { text: "s1" });
        expect(await ctx.service.loadArtifact({ ...scope("s2"), filename: "doc.txt" })).toBeUndefined();
        expect(await ctx.service.loadArtifact({ ...scope("s1", "u2"), filename: "doc.txt" })).toBeUndefined();
        expect(
          await ctx.service.loadArtifact({
            appName: `${ctx.appName}-other`,
            userId: "u1",
            sessionId: "s1",
            filename: "doc.txt",
          }),
        ).toBeUndefined();
        expect(await save("doc.txt", { text: "s2" }, "s2")).toBe(0);
        expect(await ctx.service.loadArtifact({ ...scope("s1"), filename: "doc.txt" })).toEqual({ text: "s1" });
      });

      it("shares user: files across the user's sessions, but not with other users", async () => {
        expect(await save("user:profile.txt", { text: "v0" }, "s1")).toBe(0);
        expect(await save("user:profile.txt", { text: "v1" }, "s2")).toBe(1);
        expect(await ctx.service.loadArtifact({ ...scope("s3"), filename: "user:profile.txt" })).toEqual({
          text: "v1",
        });
        expect(
          await ctx.service.loadArtifact({
            appName: ctx.appName,
            userId: "u1",
            filename: "user:profile.txt",
            version: 0,
          }),
        ).toEqual({ text: "v0" });
        expect(await ctx.service.loadArtifact({ ...scope("s1", "u2"), filename: "user:profile.txt" })).toBeUndefined();
      });

      it("lists the session's and the user's filenames, sorted and without duplicates", async () => {
        await save("zeta.txt", { text: "z" });
        await save("alpha.txt", { text: "a" });
        await save("alpha.txt", { text: "a2" });
        await save("user:mid.txt", { text: "m" }, "s2");
        await save("other-session.txt", { text: "o" }, "s2");
        await save("other-user.txt", { text: "o" }, "s1", "u2");
        expect(await ctx.service.listArtifactKeys(scope())).toEqual(["alpha.txt", "user:mid.txt", "zeta.txt"]);
        expect(await ctx.service.listArtifactKeys(scope("empty"))).toEqual(["user:mid.txt"]);
        expect(await ctx.service.listArtifactKeys(scope("s1", "nobody"))).toEqual([]);
      });

      it("requires a sessionId for session-scoped filenames", async () => {
        await expectCode(
          ctx.service.saveArtifact({
            appName: ctx.appName,
            userId: "u1",
            filename: "doc.txt",
            artifact: { text: "x" },
          }),
          "INVALID_ARTIFACT_SCOPE",
        );
      });

      it("keeps names with slashes, backslashes and unicode as distinct flat names", async () => {
        const names = [
          "a",
          "a/b.txt",
          "a\\b.txt",
          "b.txt",
          "dir/sub/deep.bin",
          "résumé ✓.txt",
          "100%.txt",
          "user:a/b.txt",
        ];
        for (const filename of names) expect(await save(filename, { text: `is ${filename}` })).toBe(0);
        for (const filename of names) {
          expect(await ctx.service.loadArtifact({ ...scope(), filename })).toEqual({ text: `is ${filename}` });
        }
        expect(await ctx.service.listArtifactKeys(scope())).toEqual([...names].sort());
        await ctx.service.deleteArtifact({ ...scope(), filename: "a" });
        expect(await ctx.service.loadArtifact({ ...scope(), filename: "a/b.txt" })).toEqual({ text: "is a/b.txt" });
        expect(await ctx.service.listVersions({ ...scope(), filename: "a/b.txt" })).toEqual([0]);
      });

      it("keeps a session file and the user: file of the same name apart", async () => {
        await save("doc.txt", { text: "session" });
        await save("user:doc.txt", { text: "user" });
        expect(await ctx.service.loadArtifact({ ...scope(), filename: "doc.txt" })).toEqual({ text: "session" });
        expect(await ctx.service.loadArtifact({ ...scope(), filename: "user:doc.txt" })).toEqual({ text: "user" });
        await ctx.service.deleteArtifact({ ...scope(), filename: "user:doc.txt" });
        expect(await ctx.service.listArtifactKeys(scope())).toEqual(["doc.txt"]);
      });

      it("does not confuse a session named 'user' or ids with slashes with other scopes", async () => {
        await save("in-user-session.txt", { text: "x" }, "user");
        expect(await ctx.service.listArtifactKeys(scope("other"))).toEqual([]);
        expect(
          await ctx.service.loadArtifact({ ...scope("other"), filename: "user:in-user-session.txt" }),
        ).toBeUndefined();
        expect(await ctx.service.listArtifactKeys(scope("user"))).toEqual(["in-user-session.txt"]);
        await save("nested.txt", { text: "a/b" }, "a/b", "team/alice@example.com");
        expect(
          await ctx.service.loadArtifact({ ...scope("a", "team/alice@example.com"), filename: "nested.txt" }),
        ).toBeUndefined();
        expect(await ctx.service.loadArtifact({ ...scope("a/b", "team"), filename: "nested.txt" })).toBeUndefined();
        expect(
          await ctx.service.loadArtifact({ ...scope("a/b", "team/alice@example.com"), filename: "nested.txt" }),
        ).toEqual({ text: "a/b" });
      });
    });

    describe("concurrency", () => {
      it("gives concurrent saves of one filename distinct versions and loses none", async () => {
        const count = 12;
        const versions = await Promise.all(
          Array.from({ length: count }, (_, i) => save("race.txt", { text: `writer ${i}` })),
        );
        expect([...versions].sort((a, b) => a - b)).toEqual(Array.from({ length: count }, (_, i) => i));
        expect(await ctx.service.listVersions({ ...scope(), filename: "race.txt" })).toEqual(
          Array.from({ length: count }, (_, i) => i),
        );
        for (let i = 0; i < count; i++) {
          expect(await ctx.service.loadArtifact({ ...scope(), filename: "race.txt", version: versions[i]! })).toEqual({
            text: `writer ${i}`,
          });
        }
      });

      it("gives concurrent saves of a user: file from several sessions distinct versions", async () => {
        const versions = await Promise.all(
          ["s1", "s2", "s3", "s4"].map((s) => save("user:shared.log", { text: s }, s)),
        );
        expect([...versions].sort()).toEqual([0, 1, 2, 3]);
        const loaded = await Promise.all(
          versions.map((version) => ctx.service.loadArtifact({ ...scope("s9"), filename: "user:shared.log", version })),
        );
        expect(loaded).toEqual(["s1", "s2", "s3", "s4"].map((text) => ({ text })));
      });
    });

    describe("delete", () => {
      it("deletes every version of one file and nothing else; saving again starts at 0", async () => {
        await save("gone.txt", { text: "0" });
        await save("gone.txt", { text: "1" });
        await save("kept.txt", { text: "k" });
        await ctx.service.deleteArtifact({ ...scope(), filename: "gone.txt" });
        expect(await ctx.service.loadArtifact({ ...scope(), filename: "gone.txt" })).toBeUndefined();
        expect(await ctx.service.listVersions({ ...scope(), filename: "gone.txt" })).toEqual([]);
        expect(await ctx.service.listArtifactKeys(scope())).toEqual(["kept.txt"]);
        expect(await save("gone.txt", { text: "new" })).toBe(0);
      });

      it("is idempotent", async () => {
        await save("x.txt", { text: "x" });
        await ctx.service.deleteArtifact({ ...scope(), filename: "x.txt" });
        await expect(ctx.service.deleteArtifact({ ...scope(), filename: "x.txt" })).resolves.toBeUndefined();
        await expect(ctx.service.deleteArtifact({ ...scope(), filename: "never.txt" })).resolves.toBeUndefined();
      });

      it("deletes a user: file for every session of the user", async () => {
        await save("user:shared.txt", { text: "x" }, "s1");
        await ctx.service.deleteArtifact({ ...scope("s2"), filename: "user:shared.txt" });
        expect(await ctx.service.loadArtifact({ ...scope("s1"), filename: "user:shared.txt" })).toBeUndefined();
      });
    });

    describe("version metadata", () => {
      it("records version, createTime in float seconds, mimeType and customMetadata", async () => {
        const before = nowSeconds();
        await save("img", png([1]), "s1", "u1", { source: "camera", tags: ["a", "b"] });
        await save("img", { fileData: { fileUri: "gs://b/x.jpg", mimeType: "image/jpeg" } });
        await save("img", { text: "plain" });
        const after = nowSeconds();
        const versions = await ctx.service.listArtifactVersions({ ...scope(), filename: "img" });
        expect(versions.map((v) => v.version)).toEqual([0, 1, 2]);
        expect(versions[0]).toMatchObject({
          mimeType: "image/png",
          customMetadata: { source: "camera", tags: ["a", "b"] },
        });
        expect(versions[1]?.mimeType).toBe("image/jpeg");
        for (const v of versions) {
          expect(v.createTime).toBeGreaterThanOrEqual(before - 1);
          expect(v.createTime).toBeLessThanOrEqual(after + 1);
        }
        expect(versions[1]!.createTime).toBeGreaterThanOrEqual(versions[0]!.createTime);
        expect((await ctx.service.getArtifactVersion({ ...scope(), filename: "img" }))?.version).toBe(2);
        expect((await ctx.service.getArtifactVersion({ ...scope(), filename: "img", version: 0 }))?.mimeType).toBe(
          "image/png",
        );
        expect(await ctx.service.getArtifactVersion({ ...scope(), filename: "img", version: 9 })).toBeUndefined();
      });
    });

    describe("validation", () => {
      it("rejects a part without inlineData, fileData or text with INVALID_ARTIFACT", async () => {
        await expectCode(save("bad", {}), "INVALID_ARTIFACT");
        await expectCode(save("bad", { functionCall: { name: "f", args: {} } }), "INVALID_ARTIFACT");
        expect(await ctx.service.listArtifactKeys(scope())).toEqual([]);
      });

      it("rejects empty, reserved, absolute, too long and control-character names with INVALID_ARTIFACT_NAME", async () => {
        for (const filename of [
          "",
          "../escape.txt",
          "a/../../b.txt",
          "..",
          ".",
          "./x",
          "a/./b",
          "dir\\..\\x",
          "user:../x",
          "user:",
          "nul\0.txt",
          "tab\there",
          "\ud800.txt",
          "/etc/passwd",
          "C:\\x",
          "n".repeat(256),
        ]) {
          await expectCode(save(filename, { text: "x" }), "INVALID_ARTIFACT_NAME");
          await expectCode(ctx.service.loadArtifact({ ...scope(), filename }), "INVALID_ARTIFACT_NAME");
        }
        expect(await ctx.service.listArtifactKeys(scope())).toEqual([]);
      });

      it("rejects invalid app names, user ids and session ids with INVALID_ARTIFACT_NAME", async () => {
        for (const bad of ["", ".", "..", "a\0b", "x".repeat(129), "\udc00"]) {
          for (const key of ["appName", "userId", "sessionId"] as const) {
            const request = { ...scope(), [key]: bad || "\n", filename: "f.txt" };
            await expectCode(
              ctx.service.saveArtifact({ ...request, artifact: { text: "x" } }),
              "INVALID_ARTIFACT_NAME",
            );
            await expectCode(ctx.service.loadArtifact(request), "INVALID_ARTIFACT_NAME");
            await expectCode(ctx.service.listArtifactKeys(request), "INVALID_ARTIFACT_NAME");
          }
        }
      });

      it("accepts ordinary names with dots and spaces", async () => {
        for (const filename of ["report v1.final.txt", "notes..txt", ".hidden", "user:my file.csv"]) {
          expect(await save(filename, { text: filename })).toBe(0);
          expect(await ctx.service.loadArtifact({ ...scope(), filename })).toEqual({ text: filename });
        }
      });
    });
  });
}
