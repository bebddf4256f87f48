// What every owned resource (a watch, a webhook endpoint) has alike: POST makes one (201, its
// Location), GET and HEAD list them, GET and HEAD show one, DELETE deletes one (204). Its own
// routes (pause, rotate) are its module's.
import type { z } from "zod";
import type { ErrorCode } from "./errors.ts";
import { jsonAnswer, rateLimitHeadersFor, requestIdHeader } from "./openapi-parts.ts";
import type { RouteDeclaration } from "./route.ts";

/** A route that answers one component schema as JSON. */
interface Reading<D, H> {
  operationId: string;
  summary: string;
  description?: string;
  /** The component schema of the 200 answer, and what the answer is. */
  component: string;
  answer: string;
  handler: (deps: D) => H;
}

/** An owned resource's routes, as its module words them. */
export interface OwnedResource<D, H> {
  /** The path POST and the list are at; one resource is at `{collection}/{id}`. */
  collection: string;
  /** What the resource is called in the id's description ("watch", "endpoint"). */
  thing: string;
  /** What another account's resource, or one that never was, is. */
  notFound: ErrorCode;
  create: Reading<D, H> & { description: string; body: z.ZodType; codes: readonly ErrorCode[] };
  list: Reading<D, H>;
  get: Reading<D, H>;
  remove: { operationId: string; summary: string; handler: (deps: D) => H };
}

/** The `id` in the path of one of an account's things, as POST `collection` answered it. */
export const idParamOf = (thing: string, collection: string) => ({
  id: `The ${thing}'s id, as POST ${collection} answered it`,
});

export function ownedResourceRoutes<D, H>(resource: OwnedResource<D, H>): RouteDeclaration<D, H>[] {
  const { collection, notFound, create, list, get, remove } = resource;
  const one = `${collection}/{id}`;
  const params = idParamOf(resource.thing, collection);
  const reading = ({ component, answer, ...words }: Reading<D, H>) => ({
    ...words,
    answers: jsonAnswer(200, component, answer),
  });
  return [
    {
      method: "POST",
      path: collection,
      operationId: create.operationId,
      summary: create.summary,
      description: create.description,
      body: create.body,
      answers: jsonAnswer(201, create.component, create.answer, {
        Location: { description: `${collection}/{id}`, required: true, schema: { type: "string" } },
      }),
      errors: create.codes,
      handler: create.handler,
    },
    { method: "GET", path: collection, ...reading(list), errors: [] },
    { method: "GET", path: one, params, ...reading(get), errors: [notFound] },
    {
      method: "DELETE",
      path: one,
      params,
      ...remove,
      answers: { 204: { description: "Deleted", headers: { ...rateLimitHeadersFor("admitted"), ...requestIdHeader } } },
      errors: [notFound],
    },
  ];
}
