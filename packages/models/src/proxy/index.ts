// Public API of @agentkit/models/proxy.
export { ProxyModel, proxyModelOptionsSchema } from "./proxy-model.js";
export type { ProxyModelOptions } from "./proxy-model.js";
