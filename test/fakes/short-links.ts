// A short-link host: each path answers with the redirect (or page) a test set for it, as pin.it,
// vm.tiktok.com or b23.tv answer a short link. It records the paths asked, in order.
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface ShortLinkHost {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** What `path` answers: a redirect to `location`, or a plain page for any other status. */
  answer(path: string, status: number, location?: string): void;
  /** The paths asked so far (with their query). */
  asked: string[];
  close(): Promise<void>;
}

export async function startShortLinkHost(): Promise<ShortLinkHost> {
  const answers = new Map<string, { status: number; location?: string }>();
  const asked: string[] = [];
  const server = http.createServer((request, response) => {
    asked.push(request.url!);
    const { status, location } = answers.get(request.url!) ?? { status: 404 };
    response.writeHead(status, location === undefined ? { "content-type": "text/html" } : { location });
    response.end("<html><body>a page, no redirect</body></html>");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    answer: (path, status, location) => void answers.set(path, { status, location }),
    asked,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
