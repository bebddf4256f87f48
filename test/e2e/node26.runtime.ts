import { nodeLineCommand } from "../helpers/node-lines.ts";
import { contractSuite } from "./contract.ts";

contractSuite({ name: "node26", command: nodeLineCommand("node26") });
