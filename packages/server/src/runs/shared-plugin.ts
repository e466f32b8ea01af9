import type { BasePlugin } from "@agentkit/core";

const noopClose = async (): Promise<void> => {};

/**
 * A view of a plugin that several runners share: every hook reaches the plugin itself (with
 * `this` bound to it), but `close()` does nothing, because closing one app's runner (after a
 * reload) must not close a plugin the other apps still use. Its owner closes the plugin.
 */
export function sharedPlugin(plugin: BasePlugin): BasePlugin {
  return new Proxy(plugin, {
    get(target, property) {
      if (property === "close") return noopClose;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
