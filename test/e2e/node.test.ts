import { nodeCommand } from "../helpers/service.ts";
import { contractSuite } from "./contract.ts";

contractSuite({ name: "node", command: nodeCommand });
