import { InMemoryArtifactService } from "../src/index.js";
import { runArtifactServiceContract } from "../src/testing/index.js";

runArtifactServiceContract("InMemoryArtifactService", async () => ({ service: new InMemoryArtifactService() }));
