// The embedded store on a thread of its own (node:worker_threads, which Node, Bun and Deno all
// have): the Db interface as messages, `serveDb` on the store's thread and `openPgliteThread` on
// the service's. Why: on Bun, PGlite in the same heap as the relay doubled the CPU each relayed
// GiB costs (docs/runtimes.md); on a thread of its own its heap is collected apart.
import { type MessagePort, Worker } from "node:worker_threads";
import { fileURLToPath } from "node:url";
import { type Db, type Listening, type Queryable, StoreUnavailableError } from "./db.ts";

type Call =
  | { id: number; op: "query"; text: string; params: unknown[]; tx?: number }
  | { id: number; op: "exec"; script: string; tx?: number }
  | { id: number; op: "begin" }
  | { id: number; op: "end"; tx: number; commit: boolean }
  | { id: number; op: "listen"; channel: string }
  | { id: number; op: "unlisten"; of: number }
  | { id: number; op: "close" };

type CallWithoutId = Call extends infer Each ? (Each extends Call ? Omit<Each, "id"> : never) : never;

/**
 * A reply to call `id`; id 0 says the store is open (or could not be opened). A notification of a
 * channel the `listen` call `heard` subscribed to comes as a reply of its own, with its payload.
 */
type Reply = { id: number; value?: unknown; error?: SentError } | { heard: number; payload: string };

/** An error as it crosses threads: its message and the fields a Postgres error carries (code, detail, ...). */
interface SentError {
  message: string;
  fields: Record<string, string | number | boolean>;
}

/** Beside the bundle in dist/, as build.mjs writes it. */
export const bundledWorker = fileURLToPath(new URL("./pglite-worker.mjs", import.meta.url));

function sendable(error: unknown): SentError {
  const fields: SentError["fields"] = {};
  if (typeof error !== "object" || error === null) return { message: String(error), fields };
  for (const [name, value] of Object.entries(error)) {
    if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") fields[name] = value;
  }
  // PGlite's file-system errors carry no text in `message`; their fields say what failed.
  const message = (error as { message?: unknown }).message;
  return { message: typeof message === "string" ? message : JSON.stringify(fields), fields };
}

const revived = ({ message, fields }: SentError): Error => Object.assign(new Error(message), fields);

/** Answers the calls that arrive on `port` with `opening`'s store, and says once it is open. */
export function serveDb(opening: Promise<Db>, port: MessagePort): void {
  const post = (reply: Reply) => port.postMessage(reply);
  const answer = (id: number, work: () => Promise<unknown>) =>
    work().then(
      (value) => post({ id, value }),
      (error: unknown) => post({ id, error: sendable(error) }),
    );
  /**
   * Open transactions by the id of the call that began them: the handle their calls run on, and
   * how each is told to end (and which call to answer once it has).
   */
  const transactions = new Map<number, { tx: Queryable; end(commit: boolean, endCall: number): void }>();
  /** Subscriptions by the id of the `listen` call that made them. */
  const listening = new Map<number, Listening>();
  const listen = async (db: Db, id: number, channel: string) => {
    const heard = (payload: string) => port.postMessage({ heard: id, payload } satisfies Reply);
    listening.set(id, await db.listen(channel, heard, () => {}));
  };
  const unlisten = async (of: number) => {
    await listening.get(of)?.close();
    listening.delete(of);
  };
  const rolledBack = Symbol("rolled back");

  const begin = (db: Db, id: number) => {
    let endCall: number | undefined;
    db.transaction(async (tx) => {
      const commit = await new Promise<boolean>((resolve) => {
        transactions.set(id, {
          tx,
          end: (commitIt, replyTo) => {
            endCall = replyTo;
            resolve(commitIt);
          },
        });
        post({ id, value: id });
      });
      if (!commit) throw rolledBack;
    })
      .then(
        () => post({ id: endCall!, value: null }),
        (error: unknown) =>
          // Before the transaction began, the begin call fails; after, the end call does.
          endCall === undefined
            ? post({ id, error: sendable(error) })
            : error === rolledBack
            ? post({ id: endCall, value: null })
            : post({ id: endCall, error: sendable(error) }),
      )
      .finally(() => transactions.delete(id));
  };

  opening.then(
    (db) => {
      port.on("message", (call: Call) => {
        const on = (tx: number | undefined): Queryable => (tx === undefined ? db : transactions.get(tx)!.tx);
        switch (call.op) {
          case "query":
            return void answer(call.id, () => on(call.tx).query(call.text, call.params));
          case "exec":
            return void answer(call.id, () => on(call.tx).exec(call.script));
          case "begin":
            return begin(db, call.id);
          case "end":
            return transactions.get(call.tx)!.end(call.commit, call.id);
          case "listen":
            return void answer(call.id, () => listen(db, call.id, call.channel));
          case "unlisten":
            return void answer(call.id, () => unlisten(call.of));
          case "close":
            return void answer(call.id, () => db.close());
        }
      });
      post({ id: 0, value: null });
    },
    (error: unknown) => post({ id: 0, error: sendable(error) }),
  );
}

/**
 * The service's side of the thread: `call` sends a call and resolves with its reply; `heard` says
 * what to do with the notifications the thread passes on under a `listen` call's id (the id the
 * next `call` will take is `nextId()`); `stop` fails every call still waiting, and every later one.
 */
function callsTo(worker: Worker) {
  const waiting = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  const hearing = new Map<number, (payload: string) => void>();
  let nextId = 1;
  /** Why no call can be made any more, once the thread is gone. */
  let gone: Error | null = null;
  const stop = (why: Error) => {
    gone ??= why;
    for (const { reject } of waiting.values()) reject(gone);
    waiting.clear();
  };
  worker.on("message", (reply: Reply) => {
    if ("heard" in reply) return hearing.get(reply.heard)?.(reply.payload);
    const { id, value, error } = reply;
    const call = waiting.get(id);
    waiting.delete(id);
    if (error === undefined) call?.resolve(value);
    else call?.reject(revived(error));
  });
  worker.on(
    "error",
    (error) =>
      stop(new StoreUnavailableError(`The embedded store's thread failed: ${error.message}`, { cause: error })),
  );
  worker.on(
    "exit",
    (code) => stop(new StoreUnavailableError(`The embedded store's thread stopped (exit code ${code}).`)),
  );
  const wait = (id: number) =>
    new Promise<unknown>((resolve, reject) => {
      if (gone) return reject(gone);
      waiting.set(id, { resolve, reject });
    });
  const call = (message: CallWithoutId) => {
    const id = nextId++;
    const reply = wait(id);
    if (!gone) worker.postMessage({ ...message, id });
    return reply;
  };
  return { call, wait, stop, hearing, nextId: () => nextId };
}

/** PGlite in `folder`, opened and run on a thread of its own. */
export async function openPgliteThread(folder: string, workerFile = bundledWorker): Promise<Db> {
  const worker = new Worker(workerFile, { workerData: { folder } });
  const { call, wait, stop, hearing, nextId } = callsTo(worker);
  const over = (tx?: number): Queryable => ({
    query: (text, params = []) => call({ op: "query", text, params: [...params], tx }) as never,
    exec: async (script) => (await call({ op: "exec", script, tx })) as never,
  });

  try {
    await wait(0);
  } catch (error) {
    await worker.terminate();
    throw error;
  }
  return {
    kind: "pglite",
    ...over(),
    async transaction(work) {
      const tx = (await call({ op: "begin" })) as number;
      let result: Awaited<ReturnType<typeof work>>;
      try {
        result = await work(over(tx));
      } catch (error) {
        await call({ op: "end", tx, commit: false }).catch(() => {});
        throw error;
      }
      await call({ op: "end", tx, commit: true });
      return result;
    },
    inTurn: (_key, work) => work(),
    async listen(channel, onNotification, onReconnect) {
      const id = nextId(); // the listen call's, under which the thread passes on what it hears
      hearing.set(id, onNotification);
      await call({ op: "listen", channel });
      onReconnect();
      return {
        close: async () => {
          hearing.delete(id);
          await call({ op: "unlisten", of: id });
        },
      };
    },
    async close() {
      await call({ op: "close" });
      stop(new StoreUnavailableError("The embedded store is closed."));
      await worker.terminate();
    },
  };
}
