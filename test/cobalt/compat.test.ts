import { nodeCommand } from "../helpers/service.ts";
import { cobaltSuite } from "./compat.ts";

cobaltSuite({ name: "node", command: nodeCommand });
