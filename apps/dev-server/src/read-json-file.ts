import { readFile } from "node:fs/promises";
import { CliUsageError } from "./cli-usage-error.js";

/** A JSON file named on the command line; unreadable or invalid is a usage error naming the file. */
export async function readJsonFile(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new CliUsageError(`${file}: cannot read it (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new CliUsageError(`${file}: not valid JSON (${(error as Error).message})`);
  }
}
