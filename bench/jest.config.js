import config from "../jest.config.base.js";
export default config(import.meta.dirname, { waiting: true });
