// Every published entry's exported names. A change here is a change of a public surface: review
// the snapshot diff (`pnpm --filter @agentkit/repo-checks test -- -u` to accept it) and say in a
// changeset why. `@agentkit/core/internal` is listed too, but is not semver-stable.
import { describe, expect, it } from "@jest/globals";
import { join } from "node:path";
import { readPublicApi } from "../lib/public-api.mjs";

const repoRoot = join(import.meta.dirname, "..", "..");

describe("public API", () => {
  const api = readPublicApi(repoRoot) as Record<string, string[]>;

  it.each(Object.keys(api))("%s", (entry) => {
    expect(api[entry]!.length).toBeGreaterThan(0);
    expect(api[entry]).toMatchSnapshot();
  });
});
