import { connectionsSuite } from "./connections.ts";

connectionsSuite({ name: "node", program: process.execPath });
