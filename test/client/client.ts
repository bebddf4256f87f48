// A client as its users would write it: types generated from the served OpenAPI document by
// openapi-typescript (into api.generated.ts, made by test/e2e/client.test.ts) and openapi-fetch.
// Each answer table lists every status the document declares for the operation, no more and no
// fewer: a status the service answers but the document lacks (or the reverse) does not compile.
import createClient from "openapi-fetch";
import type { paths } from "./api.generated.ts";

/** What a caller does with each status the document declares for the path's operation (its GET unless named). */
type AnswerTable<P extends keyof paths, M extends "get" | "post" = "get"> = Record<
  paths[P][M] extends { responses: infer Responses } ? keyof Responses : never,
  string
>;

const postAnswers: AnswerTable<"/api/v1/post"> = {
  200: "show the record",
  400: "fix the link or a parameter",
  401: "ask for a key",
  403: "the key is passive or expired",
  404: "the post is gone",
  405: "use GET or HEAD",
  429: "wait Retry-After seconds",
  431: "shorten the link",
  500: "report it",
  502: "the platform failed",
  503: "the server cannot serve now",
  504: "the platform was slow",
};

const usageAnswers: AnswerTable<"/api/v1/usage"> = {
  200: "show what is left",
  400: "fix the request",
  401: "ask for a key",
  403: "the key is passive or expired",
  405: "use GET or HEAD",
  429: "wait Retry-After seconds",
  431: "send smaller headers",
  500: "report it",
  503: "the server cannot serve now",
};

const downloadAnswers: AnswerTable<"/api/v1/download"> = {
  200: "save the file",
  206: "append the part",
  400: "fix the link or a parameter",
  401: "ask for a key",
  403: "the key is passive or expired, or the host is not allowed",
  404: "the post or file is gone",
  405: "use GET or HEAD",
  413: "the file is too large for this server",
  416: "ask for a range inside the file",
  429: "wait Retry-After seconds",
  431: "shorten the link",
  500: "report it",
  502: "the platform failed",
  503: "the server cannot serve now",
  504: "the platform was slow",
};

const createJobAnswers: AnswerTable<"/api/v1/jobs", "post"> = {
  202: "poll the job at Location",
  400: "fix the links",
  401: "ask for a key",
  403: "the key is passive or expired",
  405: "use POST or GET",
  429: "send fewer links, or wait Retry-After seconds",
  431: "send smaller headers",
  500: "report it",
  503: "the server cannot serve now",
};

const jobAnswers: AnswerTable<"/api/v1/jobs/{id}"> = {
  200: "show the job",
  400: "fix the cursor",
  401: "ask for a key",
  403: "the key is passive or expired",
  404: "no such job of this account",
  405: "use GET, HEAD or DELETE",
  429: "wait Retry-After seconds",
  431: "send smaller headers",
  500: "report it",
  503: "the server cannot serve now",
};

export interface Called {
  status: number;
  /** What the caller's table says to do for the status. */
  action: string;
}

export function apiClient(baseUrl: string, key: string) {
  const client = createClient<paths>({ baseUrl, headers: { authorization: `Bearer ${key}` } });
  const action = (table: Record<number, string>, status: number) => table[status] ?? `undeclared status ${status}`;
  return {
    async usage(): Promise<Called & { remaining: number | null }> {
      const { data, response } = await client.GET("/api/v1/usage");
      return {
        status: response.status,
        action: action(usageAnswers, response.status),
        remaining: data?.remaining ?? null,
      };
    },
    async usageHead(): Promise<Called> {
      const { response } = await client.HEAD("/api/v1/usage");
      return { status: response.status, action: action(usageAnswers, response.status) };
    },
    async post(url: string): Promise<Called & { id: string | null; code: string | null }> {
      const { data, error, response } = await client.GET("/api/v1/post", { params: { query: { url } } });
      return {
        status: response.status,
        action: action(postAnswers, response.status),
        id: data?.id ?? null,
        code: error?.code ?? null,
      };
    },
    async createJob(urls: string[]): Promise<Called & { id: string | null; location: string | null }> {
      const { data, response } = await client.POST("/api/v1/jobs", { body: { urls } });
      return {
        status: response.status,
        action: action(createJobAnswers, response.status),
        id: data?.id ?? null,
        location: response.headers.get("location"),
      };
    },
    async job(id: string): Promise<Called & { status_: string | null; posts: (string | null)[] }> {
      const { data, response } = await client.GET("/api/v1/jobs/{id}", { params: { path: { id } } });
      return {
        status: response.status,
        action: action(jobAnswers, response.status),
        status_: data?.status ?? null,
        posts: data?.items.map((item) => item.post?.id ?? null) ?? [],
      };
    },
    async download(url: string): Promise<Called & { bytes: Uint8Array | null }> {
      const { data, response } = await client.GET("/api/v1/download", {
        params: { query: { url } },
        parseAs: "arrayBuffer",
      });
      return {
        status: response.status,
        action: action(downloadAnswers, response.status),
        bytes: data === undefined ? null : new Uint8Array(data),
      };
    },
  };
}
