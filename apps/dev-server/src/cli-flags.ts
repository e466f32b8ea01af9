import { parseArgs } from "node:util";
import { CliUsageError } from "./cli-usage-error.js";

// Flag parsing shared by the CLI's commands: node:util's parseArgs, strict, its errors as usage errors.

export type FlagSpec = Record<string, { type: "string" | "boolean"; multiple?: boolean }>;
export type FlagValues = Record<string, string | boolean | (string | boolean)[] | undefined>;

export function parse(
  args: string[],
  options: FlagSpec,
  command: string,
): { values: FlagValues; positionals: string[] } {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new CliUsageError(`agentkit ${command}: ${(error as Error).message}`);
  }
}

export function str(values: FlagValues, flag: string): string | undefined {
  const v = values[flag];
  return typeof v === "string" && v !== "" ? v : undefined;
}

export function strings(values: FlagValues, flag: string): string[] {
  const v = values[flag];
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
}
