import { describe, expect, it } from "@jest/globals";
import { readFileSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { devUiDir } from "../src/index.js";

describe("devUiDir", () => {
  it("is the absolute dist/ui folder of this package", () => {
    const dir = devUiDir();
    expect(isAbsolute(dir)).toBe(true);
    expect(dir).toBe(join(import.meta.dirname, "..", "dist", "ui"));
  });

  it('builds from a page with <base href="./"> and relative asset URLs (served under /dev-ui/)', () => {
    const html = readFileSync(join(import.meta.dirname, "..", "src", "ui", "index.html"), "utf8");
    expect(html).toContain('<base href="./">');
    expect(html).toContain('src="./main.tsx"');
    expect(readFileSync(join(import.meta.dirname, "..", "vite.config.ts"), "utf8")).toMatch(/base: "\.\/"/);
  });
});
