import { nodeLineCommand } from "../helpers/node-lines.ts";
import { contractSuite } from "./contract.ts";

contractSuite({ name: "node22", command: nodeLineCommand("node22") });
