export { ScriptedModel, ScriptError, type ScriptStep, type CheckedStep, type ScriptedModelOptions, type RecordedRequest } from "./scripted-model.js";
