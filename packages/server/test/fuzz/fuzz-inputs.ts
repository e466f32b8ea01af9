// What the fuzz test sends: odd ids and names, malformed bodies, request lines for every route.
import type { SeededRandom } from "@agentkit/test-support/seeded-random";

/** Strings that have broken servers before: unicode oddities, prototype names, traversal. */
const ODD_STRINGS = [
  "",
  " ",
  ".",
  "..",
  "...",
  "__proto__",
  "constructor",
  "hasOwnProperty",
  "toString",
  "prototype",
  "user",
  "user:",
  "user:x",
  "a\u0000b",
  "\u0000",
  "\n",
  "\r\n",
  "\t",
  "\u007f",
  "\u0085",
  "\ud800", // lone high surrogate
  "\udc00x", // lone low surrogate
  "\u202eexe.txt", // right-to-left override
  "\u200f\u200e",
  "\ufeff",
  "🙂👍🏽🏳️‍🌈",
  "東京タワー",
  "Zoë", // NFC
  "Zoe\u0308", // NFD
  "ﬁle", // ligature
  "%",
  "%00",
  "%2e%2e",
  "%2e%2e%2f",
  "..%2f..%2fetc",
  "a/b",
  "a\\b",
  "/abs",
  "C:\\win",
  "\\\\server\\share",
  "../../../../etc/passwd",
  "'; DROP TABLE sessions; --",
  '{"$ne": null}',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a log4shell probe, sent as plain text.
  "${jndi:ldap://x}",
  "<script>alert(1)</script>",
  "null",
  "undefined",
  "NaN",
  "-1",
  "1e309",
  "0x10",
];

/** Characters for long ids: ASCII, escapes, multi-byte and astral ones. */
const LONG_ALPHABET = ["a", "Z", "9", "-", "_", ".", "%", "!", "é", "東", "🙂", "/", " "];

/** Lone surrogates have no UTF-8 form (encodeURIComponent throws on them); the raw bytes are sent separately. */
function wellFormed(value: string): string {
  return value.replace(/\p{Cs}/gu, "\ufffd");
}

export class FuzzInputs {
  /** Session ids created for real, so some requests hit existing sessions. */
  readonly knownSessions: string[] = [];

  constructor(
    private readonly rng: SeededRandom,
    readonly apps: { text: string; live: string },
  ) {}

  /** A string for an id or name position. */
  id(): string {
    const r = this.rng;
    const roll = r.next();
    if (roll < 0.3 && this.knownSessions.length > 0) return r.pick(this.knownSessions);
    if (roll < 0.5) return `s-${r.int(1000)}`;
    if (roll < 0.8) return r.pick(ODD_STRINGS);
    if (roll < 0.9) return this.long(r.chance(0.5) ? r.between(40, 255) : r.between(300, 5000));
    return r.pick(ODD_STRINGS) + r.pick(ODD_STRINGS);
  }

  app(): string {
    const r = this.rng;
    const roll = r.next();
    if (roll < 0.55) return this.apps.text;
    if (roll < 0.65) return this.apps.live;
    if (roll < 0.75) return "no_such_app";
    return this.id();
  }

  user(): string {
    return this.rng.chance(0.5) ? "fuzz-user" : this.id();
  }

  long(length: number): string {
    let out = "";
    while (out.length < length) out += this.rng.pick(LONG_ALPHABET);
    return out;
  }

  /** A path segment: encoded (mostly), double-encoded, or raw latin-1 bytes Node's client allows. */
  segment(value: string): string {
    const r = this.rng.next();
    if (r < 0.75) return encodeURIComponent(wellFormed(value));
    if (r < 0.85) return encodeURIComponent(encodeURIComponent(wellFormed(value)));
    if (r < 0.92) return this.rng.pick(["%2e%2e", "..", ".", "%2F", "a%2Fb", "%ED%A0%80", "%E0%A4%A", "%%", "%C0%AF"]);
    // Raw bytes 0x21-0xff, as Node's client lets them through.
    return (
      Array.from(value.slice(0, 64), (c) => {
        const code = c.charCodeAt(0) & 0xff;
        return code < 0x21 ? "%20" : String.fromCharCode(code);
      }).join("") || "x"
    );
  }

  /** A JSON value of a random shape (for fields whose type the server checks). */
  value(depth = 0): unknown {
    const r = this.rng;
    switch (r.int(depth > 3 ? 6 : 9)) {
      case 0:
        return null;
      case 1:
        return r.chance(0.5);
      case 2:
        return r.pick([0, -1, 1.5, 1e308, -0, 2 ** 53 + 1]);
      case 3:
        return this.id();
      case 4:
        return r.chance(0.1) ? this.long(r.between(1000, 20_000)) : "text";
      case 5:
        return [];
      case 6:
        return Array.from({ length: r.int(4) }, () => this.value(depth + 1));
      case 7:
        return this.object(depth + 1);
      default:
        // Own `__proto__` and `constructor` keys, as JSON.parse makes them.
        return JSON.parse('{"__proto__": {"polluted": true}, "constructor": {"prototype": {"polluted": true}}}');
    }
  }

  object(depth = 0): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const keys = ["a", "__proto__", "constructor", "app:x", "user:y", "temp:z", this.id()];
    for (let i = this.rng.int(4); i > 0; i--) {
      Object.defineProperty(out, this.rng.pick(keys), {
        value: this.value(depth + 1),
        enumerable: true,
        configurable: true,
        writable: true,
      });
    }
    return out;
  }

  /** A message Content: valid, or broken in one way. */
  content(): unknown {
    const r = this.rng;
    const parts = () =>
      r.pick<unknown>([
        [{ text: r.chance(0.8) ? "hello" : this.id() }],
        [{ text: `save ${this.id()}` }],
        [{ inlineData: { mimeType: "text/plain", data: r.pick(["aGVsbG8=", "not base64!", "", "aGVsbG8"]) } }],
        [{ inline_data: { mime_type: 7, data: "x" } }],
        [{ functionResponse: { name: "save", response: this.value(), id: this.id() } }],
        [{ functionCall: { name: this.id(), args: this.value() } }],
        [{ fileData: { fileUri: this.id(), mimeType: "x/y" } }],
        [{}],
        [null],
        "not parts",
        [],
        this.value(),
      ]);
    return r.chance(0.7)
      ? { role: "user", parts: parts() }
      : r.pick<unknown>([{ parts: parts() }, this.value(), "hi", []]);
  }

  /** A JSON object for one of the server's bodies, with wrong types and extra keys mixed in. */
  body(kind: "run" | "session" | "patch" | "artifact" | "memory" | "eval" | "any", real = false): unknown {
    const r = this.rng;
    const maybe = (v: unknown) => (r.chance(0.85) ? v : this.value());
    const known = () => (this.knownSessions.length > 0 ? r.pick(this.knownSessions) : "s-1");
    let body: Record<string, unknown>;
    switch (kind) {
      case "run":
        body = {
          [r.chance(0.5) ? "appName" : "app_name"]: real ? this.apps.text : maybe(this.app()),
          [r.chance(0.5) ? "userId" : "user_id"]: real ? "fuzz-user" : maybe(this.user()),
          [r.chance(0.5) ? "sessionId" : "session_id"]: real ? known() : maybe(this.id()),
          newMessage: maybe(this.content()),
          streaming: maybe(r.chance(0.5)),
          stateDelta: maybe(this.object()),
          customMetadata: maybe(this.object()),
        };
        break;
      case "session":
        body = { sessionId: maybe(this.id()), state: maybe(this.object()), events: maybe(this.events()) };
        break;
      case "patch":
        body = { stateDelta: maybe(this.object()) };
        break;
      case "artifact":
        body = {
          filename: maybe(r.chance(0.2) ? this.long(r.between(40, 300)) : this.id()),
          artifact: maybe(
            r.pick<unknown>([
              { text: "content" },
              { inlineData: { mimeType: "image/png", data: "iVBORw0KGgo=" } },
              { inline_data: { mime_type: "text/plain", data: "aGk" } },
              { fileData: { fileUri: "gs://b/o", mimeType: "text/plain" } },
              { functionCall: { name: "x", args: {} } },
              {},
            ]),
          ),
          customMetadata: maybe(this.object()),
        };
        break;
      case "memory":
        body = { sessionId: real ? known() : maybe(this.id()) };
        break;
      case "eval":
        body = {
          eval_set_id: maybe(this.id()),
          evalSetId: maybe(this.id()),
          eval_ids: maybe([this.id()]),
          session_id: maybe(this.id()),
          user_id: maybe(this.user()),
          eval_metrics: maybe([{ metric_name: this.id(), threshold: this.value() }]),
          eval_case: maybe(this.object()),
        };
        break;
      default:
        body = this.object();
    }
    if (r.chance(0.2)) Object.defineProperty(body, "__proto__", { value: this.object(), enumerable: true });
    return r.chance(real ? 0.01 : 0.05) ? this.value() : body;
  }

  events(): unknown {
    return Array.from({ length: this.rng.int(3) }, () =>
      this.rng.pick<unknown>([
        { author: "user", content: { role: "user", parts: [{ text: "hi" }] }, timestamp: 1 },
        { author: 5 },
        { id: this.id(), invocationId: this.id(), author: "model", actions: this.object(), timestamp: "x" },
        this.value(),
      ]),
    );
  }

  /** The bytes of a body: the JSON of `value`, or text that is not JSON at all. */
  encode(value: unknown, real = false): { body: string | Buffer; contentType: string | undefined } {
    const r = this.rng;
    const json = JSON.stringify(value) ?? "null";
    // Requests meant to reach the services are mostly well-formed JSON; the rest are anything.
    if (real && r.chance(0.8)) return { body: json, contentType: "application/json" };
    const roll = r.next();
    const contentType = r.pick([
      "application/json",
      "application/json",
      "application/json; charset=utf-8",
      "application/json; charset=latin1",
      "application/json; charset=utf-16",
      "text/plain",
      "application/x-www-form-urlencoded",
      "application/vnd.api+json",
      undefined,
    ]);
    if (roll < 0.7) return { body: json, contentType };
    if (roll < 0.78) return { body: json.slice(0, r.int(json.length)), contentType }; // truncated
    if (roll < 0.83) return { body: `${json}}}garbage`, contentType };
    if (roll < 0.86) return { body: "[".repeat(100_000), contentType: "application/json" };
    if (roll < 0.89) return { body: `{"a":${"[".repeat(5000)}${"]".repeat(5000)}}`, contentType: "application/json" };
    if (roll < 0.92) return { body: Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0xc0, 0x22, 0x3a, 0x31, 0x7d]), contentType };
    if (roll < 0.95)
      return { body: `{"x":"${"y".repeat(r.between(200_000, 600_000))}"}`, contentType: "application/json" };
    if (roll < 0.97) return { body: "\u0000\u0001\u0002", contentType };
    return { body: "", contentType };
  }
}
