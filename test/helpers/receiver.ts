// A webhook receiver on this machine: it answers with the statuses it is told, 200 after them,
// and keeps every delivery that came (headers and body as sent), for the standardwebhooks package
// to verify.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export interface Delivery {
  headers: Record<string, string>;
  body: string;
}

export async function startReceiver() {
  const received: Delivery[] = [];
  const answers: number[] = [];
  const server = createServer(async (request, response) => {
    let body = "";
    for await (const chunk of request) body += chunk;
    received.push({ headers: request.headers as Record<string, string>, body });
    response.writeHead(answers.shift() ?? 200).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    /** For WEBHOOK_EXTRA_HOSTS. */
    endpoint: `127.0.0.1:${port}`,
    received,
    /** Statuses to answer the next deliveries with, in turn. */
    answers,
    events: (type: string) => received.filter((each) => JSON.parse(each.body).type === type),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;
