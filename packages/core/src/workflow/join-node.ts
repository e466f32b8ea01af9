import { ConfigurationError } from "../errors/agentkit-error.js";
import { BaseNode, type BaseNodeOptions, type NodeYield } from "./base-node.js";
import type { NodeContext } from "./node-context.js";

/**
 * How many predecessors a join waits for: `"all"` (each predecessor that can still deliver), a
 * number (the first N), or the names of the predecessors that must have delivered.
 */
export type JoinWaitFor = "all" | number | string[];

export interface JoinNodeOptions
  extends Omit<BaseNodeOptions<Record<string, unknown>, Record<string, unknown>>, "rerunOnResume"> {
  /** Default `"all"`. */
  waitFor?: JoinWaitFor;
}

/**
 * A fan-in: runs once its predecessors delivered (see `waitFor`), with their outputs as input
 * (`{ predecessorName: output }`), and outputs that object. With `"all"`, predecessors that a
 * route did not take are not waited for: the join runs once nothing else can reach it. With a
 * number or names it runs as soon as those delivered; later deliveries of the same round are
 * dropped.
 */
export class JoinNode extends BaseNode<Record<string, unknown>, Record<string, unknown>> {
  readonly waitFor: JoinWaitFor;

  constructor(options: JoinNodeOptions) {
    super(options);
    const waitFor = options.waitFor ?? "all";
    const valid =
      waitFor === "all" ||
      (typeof waitFor === "number" && Number.isInteger(waitFor) && waitFor >= 1) ||
      (Array.isArray(waitFor) && waitFor.length > 0 && waitFor.every((n) => typeof n === "string"));
    if (!valid)
      throw new ConfigurationError(
        `JoinNode "${options.name}": waitFor must be "all", a positive integer or a non-empty list of predecessor names.`,
      );
    this.waitFor = waitFor;
  }

  // biome-ignore lint/correctness/useYield: a join only passes its collected input on.
  override async *runNode(
    _ctx: NodeContext,
    input: Record<string, unknown>,
  ): AsyncGenerator<NodeYield, Record<string, unknown>, void> {
    return input;
  }
}

/** True for a join node. */
export function isJoinNode(node: unknown): node is JoinNode {
  return node instanceof JoinNode;
}
