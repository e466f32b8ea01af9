import { describe, expect, it } from "@jest/globals";
import { SseParser, frameError } from "../src/ui/lib/sse-parser.js";

describe("SseParser", () => {
  it("parses frames split at arbitrary byte boundaries, each exactly once", () => {
    const stream = 'data: {"id":"a","n":1}\n\ndata: {"id":"b","text":"x\\ny"}\n\n';
    for (let cut = 1; cut < stream.length; cut += 1) {
      const parser = new SseParser();
      const frames = [...parser.push(stream.slice(0, cut)), ...parser.push(stream.slice(cut)), ...parser.end()];
      expect(frames).toEqual([
        { id: "a", n: 1 },
        { id: "b", text: "x\ny" },
      ]);
    }
  });

  it("accepts CRLF line ends, `data:` without a space, comments and unknown fields", () => {
    const parser = new SseParser();
    const frames = parser.push(': ping\r\nevent: message\r\ndata:{"id":"j"}\r\n\r\nid: 7\r\ndata: {"id":"k"}\r\n\r\n');
    expect(frames).toEqual([{ id: "j" }, { id: "k" }]);
  });

  it("delivers a last frame without its blank line at the end of the stream", () => {
    const parser = new SseParser();
    expect(parser.push('data: {"id":"z"}')).toEqual([]);
    expect(parser.end()).toEqual([{ id: "z" }]);
  });

  it("turns an unreadable frame into an error frame instead of dropping it", () => {
    const parser = new SseParser();
    const [frame] = parser.push("data: {not json\n\n");
    expect(frameError(frame)).toMatch(/Unreadable stream frame: \{not json/);
  });

  it("recognises error frames, string or structured", () => {
    expect(frameError({ error: "Agent 'nope' not found" })).toBe("Agent 'nope' not found");
    expect(frameError({ error: { code: 1 } })).toBe('{"code":1}');
    expect(frameError({ id: "e1", errorCode: "UNKNOWN_ERROR" })).toBeUndefined();
    expect(frameError(null)).toBeUndefined();
  });
});
