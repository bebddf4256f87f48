// A webhook receiver on this machine: it answers with the statuses it is told, 200 after them,
// and keeps every delivery that came (headers and body as sent), for the standardwebhooks package
// to verify. Its 2xx may come with a body that a sender has no need to read: a large one, or one
// that never ends.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export interface Delivery {
  headers: Record<string, string>;
  body: string;
}

/** The body of the receiver's answers: none, 1 MB, or a byte and then nothing until the sender goes. */
export type AnswerBody = "none" | "large" | "endless";

export async function startReceiver() {
  const received: Delivery[] = [];
  const answers: number[] = [];
  const state = { answerBody: "none" as AnswerBody };
  const server = createServer(async (request, response) => {
    let body = "";
    for await (const chunk of request) body += chunk;
    received.push({ headers: request.headers as Record<string, string>, body });
    response.writeHead(answers.shift() ?? 200, { "content-type": "text/plain" });
    if (state.answerBody === "large") response.end("x".repeat(1024 * 1024));
    else if (state.answerBody === "endless") response.write("x");
    else response.end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    port,
    /** What the next answers carry after their status line. */
    state,
    /** For WEBHOOK_EXTRA_HOSTS. */
    endpoint: `127.0.0.1:${port}`,
    received,
    /** Statuses to answer the next deliveries with, in turn. */
    answers,
    events: (type: string) => received.filter((each) => JSON.parse(each.body).type === type),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // An endless answer is never done: its sockets are ended with the server.
        server.closeAllConnections();
      }),
  };
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;
