import config from "../../jest.config.base.js";

// The CLI processes these tests start load the workspace's sources, never a bundle cache an
// earlier start left (src/source-bundles.ts): what runs does not depend on the order tests ran
// in, and no server spends a test's time bundling. source-bundles.test.ts and the source
// runtime's test turn the cache on where they test it.
process.env.AGENTKIT_SOURCE_BUNDLES ??= "0";
// Most of its time is spent waiting (servers, child processes, a browser): two files at a time.
export default config(import.meta.dirname, { waiting: true });
