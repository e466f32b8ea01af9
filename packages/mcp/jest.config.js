import config from "../../jest.config.base.js";
// Most of its time is spent waiting (child processes, servers, the conformance tool): two files at a time.
export default config(import.meta.dirname, { waiting: true });
