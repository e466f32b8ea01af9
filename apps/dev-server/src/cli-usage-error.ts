import { AgentKitError } from "@agentkit/core";

/** The command line is wrong (unknown command or flag, bad value). The CLI prints it with the help hint and exits 2. */
export class CliUsageError extends AgentKitError {
  constructor(message: string) {
    super("CLI_USAGE", message);
  }
}
