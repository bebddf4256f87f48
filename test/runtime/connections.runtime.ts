import { resolve } from "node:path";
import { connectionsSuite } from "./connections.ts";

connectionsSuite({ name: "bun", program: resolve("node_modules/.bin/bun") });
