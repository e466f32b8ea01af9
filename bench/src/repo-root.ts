import { fileURLToPath } from "node:url";

/** This checkout's root folder, with a trailing slash (the benchmarks live in its `bench/src`). */
export const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
