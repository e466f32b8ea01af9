// The shared model conformance suite on the Gemini adapter (own file so the suite's file stays shared).
import { runModelConformance } from "./conformance/run-model-conformance.js";
import { geminiTarget } from "./conformance/providers.js";

runModelConformance("Gemini", geminiTarget);
