export {
  ScriptedModel,
  ScriptError,
  type ScriptStep,
  type CheckedStep,
  type ScriptedModelOptions,
  type RecordedRequest,
} from "./scripted-model.js";
export { ContentsProbeModel } from "./contents-probe-model.js";
export {
  ScriptedLiveModel,
  ScriptedLiveConnection,
  type ScriptedLiveModelOptions,
  type LiveReply,
  type LiveInput,
} from "./scripted-live-model.js";
export {
  useContractSubject,
  type ContractSubject,
  type ContractFactory,
  type ContractContext,
  type TestHooks,
} from "./contract-subject.js";
export {
  checkContractTestApi,
  type ContractAsyncMatchers,
  type ContractExpect,
  type ContractMatchers,
  type ContractTestApi,
} from "./contract-test-api.js";
export { assertExpect } from "./assert-expect.js";
