import { throwFailures } from "../concurrency/settle-all.js";
import { AgentKitError, ConfigurationError } from "../errors/agentkit-error.js";
import { NOTHING } from "../agents/callbacks.js";
import { BasePlugin, type PluginHookName } from "./base-plugin.js";

/** A plugin hook threw. */
export class PluginError extends AgentKitError {
  readonly pluginName: string;
  readonly hook: string;

  constructor(pluginName: string, hook: string, cause: unknown) {
    super(
      "PLUGIN_ERROR",
      `Plugin "${pluginName}" failed in ${hook}: ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause },
    );
    this.pluginName = pluginName;
    this.hook = hook;
  }
}

type HookArgs<H extends PluginHookName> = Parameters<BasePlugin[H]>[0];
type HookResult<H extends PluginHookName> = Exclude<Awaited<ReturnType<BasePlugin[H]>>, void | undefined>;

/** Runs plugins in registration order; the first hook that returns a value wins. */
export class PluginManager {
  private readonly list: BasePlugin[] = [];

  constructor(plugins: BasePlugin[] = []) {
    for (const p of plugins) this.registerPlugin(p);
  }

  registerPlugin(plugin: BasePlugin): void {
    if (this.list.some((p) => p.name === plugin.name)) {
      throw new ConfigurationError(
        `A plugin named "${plugin.name}" is already registered; plugin names must be unique.`,
      );
    }
    this.list.push(plugin);
  }

  getPlugin(name: string): BasePlugin | undefined {
    return this.list.find((p) => p.name === name);
  }

  get plugins(): readonly BasePlugin[] {
    return this.list;
  }

  /** True when some plugin has its own `hook` (not `BasePlugin`'s, which does nothing). */
  hasHook(hook: PluginHookName): boolean {
    for (const plugin of this.list) if (plugin[hook] !== BasePlugin.prototype[hook]) return true;
    return false;
  }

  /**
   * True when some plugin's own `beforeModelCallback` may edit or keep `request.contents` (it does
   * not declare `readsContentsOnly`): the flow copies lent contents before the plugins run.
   */
  mayEditContents(): boolean {
    for (const plugin of this.list) {
      if (plugin.beforeModelCallback !== BasePlugin.prototype.beforeModelCallback && !plugin.readsContentsOnly)
        return true;
    }
    return false;
  }

  /**
   * Runs one hook over every plugin in order, stopping at the first returned value. Plugins
   * that keep `BasePlugin`'s own hook (which does nothing) are passed over, and with none left
   * no promise is made: every event and model call goes through several hooks.
   */
  run<H extends PluginHookName>(hook: H, args: HookArgs<H>): Promise<HookResult<H> | undefined> {
    return this.hasHook(hook) ? this.runFrom(hook, args) : NOTHING;
  }

  private async runFrom<H extends PluginHookName>(hook: H, args: HookArgs<H>): Promise<HookResult<H> | undefined> {
    for (const plugin of this.list) {
      if (plugin[hook] === BasePlugin.prototype[hook]) continue;
      let result: unknown;
      try {
        result = await (plugin[hook] as (a: HookArgs<H>) => unknown).call(plugin, args);
      } catch (error) {
        throw new PluginError(plugin.name, hook, error);
      }
      if (result !== undefined && result !== null) return result as HookResult<H>;
    }
    return undefined;
  }

  /**
   * Runs one hook over every plugin, also after one of them threw: for hooks that end something
   * (`afterRunCallback`), where a plugin skipped would keep what it holds for the run forever.
   * Returned values are ignored; a failure is thrown once all ran (several as an AggregateError).
   */
  async runAll<H extends PluginHookName>(hook: H, args: HookArgs<H>): Promise<void> {
    const failures: PluginError[] = [];
    for (const plugin of this.list) {
      if (plugin[hook] === BasePlugin.prototype[hook]) continue;
      try {
        await (plugin[hook] as (a: HookArgs<H>) => unknown).call(plugin, args);
      } catch (error) {
        failures.push(new PluginError(plugin.name, hook, error));
      }
    }
    throwFailures(failures, (n) => `${n} plugins failed in ${hook}`);
  }

  /** Closes every plugin; failures are collected and thrown together after all ran. */
  async close(): Promise<void> {
    const results = await Promise.allSettled(this.list.map((p) => p.close()));
    const failures = results.flatMap((r, i) =>
      r.status === "rejected" ? [new PluginError(this.list[i]!.name, "close", r.reason)] : [],
    );
    throwFailures(failures, (n) => `${n} plugins failed to close`);
  }
}
