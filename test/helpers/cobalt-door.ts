// cobalt's door asked in-process over a test's app, as a cobalt client with a key asks it: POST /
// of cobalt's API, and GET of the tunnels its answer gives.
import { createCobaltDoor } from "../../src/cobalt/door.ts";
import { parseConfig } from "../../src/config.ts";
import { createLogger } from "../../src/log.ts";
import type { Db } from "../../src/store/db.ts";
import type { TestApp } from "./app.ts";

/** A door over `app` with the default settings; its clock is the app's, which checks the tunnels the door signs. */
export function cobaltDoorOver(app: TestApp, db: Db) {
  const door = createCobaltDoor({
    api: app.app,
    db,
    config: parseConfig({}),
    log: createLogger("error"),
    startedAt: new Date(),
    now: app.clock.now,
  });
  const answer = async (request: Request) =>
    (await door.answer(request, { peer: "127.0.0.1", requestId: crypto.randomUUID() })).response;
  return {
    /** cobalt's answer for `url`, asked with `key`: its status and body. */
    async ask(key: string, url: string): Promise<{ status: number; answer: any }> {
      const response = await answer(
        new Request("http://door.local/", {
          method: "POST",
          headers: { accept: "application/json", "content-type": "application/json", authorization: `Api-Key ${key}` },
          body: JSON.stringify({ url, filenameStyle: "classic" }),
        }),
      );
      return { status: response.status, answer: await response.json() };
    },
    /** A tunnel of an answer, opened. */
    open: (tunnel: string): Promise<Response> => answer(new Request(tunnel)),
  };
}
