/** The agentkit version (kept equal to the package version by the release process). */
export const VERSION = "0.1.0";
