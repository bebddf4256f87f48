import { nodeCommand } from "../helpers/service.ts";
import { answersSuite } from "./answers.ts";

answersSuite({ name: "node", command: nodeCommand, ownParser: false });
