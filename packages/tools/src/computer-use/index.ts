// Public API of @agentkit/tools/computer-use.
export {
  ComputerEnvironment,
  type BaseComputer,
  type ComputerState,
  type ScrollDirection,
  type TypeTextOptions,
} from "./base-computer.js";
export {
  ComputerUseToolset,
  NORMALIZED_COORDINATE_RANGE,
  type ComputerUseToolsetOptions,
  type ComputerToolResult,
} from "./computer-use-toolset.js";
export { ComputerUseError } from "./computer-use-error.js";
export {
  PlaywrightComputer,
  DEFAULT_CHROMIUM_ARGS,
  type PlaywrightComputerOptions,
} from "./playwright/playwright-computer.js";
export {
  computerUseToolsetFromConfig,
  type ComputerUseToolsetFromConfigOptions,
} from "./computer-use-toolset-from-config.js";
