import { describe, expect, it } from "@jest/globals";
import { ByteArena } from "../../src/telemetry/byte-arena.js";

describe("ByteArena", () => {
  it("gives back each text as written, multi-byte characters included", () => {
    const arena = new ByteArena();
    const texts = ["plain", "żółć – 漢字 – 🙂", "", '{"a":[1,2,3],"b":"\\"quoted\\""}'];
    const slices = texts.map((t) => arena.write(t));
    expect(slices.map((s) => arena.read(s))).toEqual(texts);
    expect(slices.map((s) => s.length)).toEqual(texts.map((t) => Buffer.byteLength(t, "utf8")));
  });

  it("starts a new chunk when a text does not fit, and gives a large text a buffer of its own", () => {
    const arena = new ByteArena();
    const piece = "x".repeat(100 * 1024);
    const a = arena.write(piece);
    const b = arena.write(piece);
    const c = arena.write(piece); // 300 KB do not fit one 256 KiB chunk
    expect(a.chunk).toBe(b.chunk);
    expect(c.chunk).not.toBe(a.chunk);
    const big = arena.write("y".repeat(200 * 1024));
    expect(big.chunk).not.toBe(c.chunk);
    expect(big.chunk.buffer.length).toBe(200 * 1024);
    expect([a, b, c, big].map((s) => arena.read(s).length)).toEqual([
      piece.length,
      piece.length,
      piece.length,
      200 * 1024,
    ]);
  });

  it("lets a full chunk go once every text in it is released, and keeps the current one", () => {
    const arena = new ByteArena();
    const piece = "z".repeat(100 * 1024);
    const first = [arena.write(piece), arena.write(piece)];
    const current = arena.write(piece); // the first chunk is full now
    expect(arena.retainedBytes).toBe(2 * 256 * 1024);
    arena.release(first[0]!);
    expect(arena.retainedBytes).toBe(2 * 256 * 1024); // one text of it is still live
    arena.release(first[1]!);
    expect(arena.retainedBytes).toBe(256 * 1024);
    arena.release(current);
    expect(arena.retainedBytes).toBe(256 * 1024); // the current chunk stays for the next text
    const big = arena.write("w".repeat(150 * 1024));
    expect(arena.retainedBytes).toBe(256 * 1024 + 150 * 1024);
    arena.release(big);
    expect(arena.retainedBytes).toBe(256 * 1024);
    arena.clear();
    expect(arena.retainedBytes).toBe(0);
  });
});
