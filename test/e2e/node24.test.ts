import { nodeLineCommand } from "../helpers/node-lines.ts";
import { contractSuite } from "./contract.ts";

contractSuite({ name: "node24", command: nodeLineCommand("node24") });
