// The apps the official-UI test serves: three of the dev UI tests' scripted fixture apps.
import { makeFixtureAgents, type FixtureAgents } from "../dev-ui/fixture-agents.js";

export const FIXTURE_APPS = ["artifact_agent", "stream_agent", "tool_agent"] as const;

export type { FixtureAgents };

export function makeOfficialUiAgents(): Promise<FixtureAgents> {
  return makeFixtureAgents(FIXTURE_APPS);
}
