import { describe, expect, it } from "@jest/globals";
import { maskSchemeCredentials } from "../../src/internal.js";

describe("maskSchemeCredentials", () => {
  it("masks every Bearer and Basic credential and keeps the scheme and the rest of the text", () => {
    const text =
      "sent Authorization: Bearer eyJhbGciOi.J9.abc then Basic dXNlcjpwYXNz, twice: Bearer eyJhbGciOi.J9.abc";
    expect(maskSchemeCredentials(text, "[X]")).toBe("sent Authorization: Bearer [X] then Basic [X], twice: Bearer [X]");
  });

  it("leaves ordinary words and too-short values alone", () => {
    for (const text of ["a Bearer of news", "Basic abc", "Bearerless token", ""]) {
      expect(maskSchemeCredentials(text, "[X]")).toBe(text);
    }
  });
});
