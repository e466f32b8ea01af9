import config from "../../jest.config.base.js";
// Most of its time is spent waiting (servers, child processes, a browser): two files at a time.
export default config(import.meta.dirname, { waiting: true });
