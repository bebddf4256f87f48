// One declaration per route: its method and path, what it takes (path parameters, query, body),
// what it answers and which codes of the error table besides the common ones, and its handler. The
// router and the OpenAPI document are both built from the same list, so they cannot disagree.
import { z } from "zod";
import type { ErrorCode } from "./errors.ts";
import { problemResponses, requestBodySchema, type Responses, withHead } from "./openapi-parts.ts";
import type { Method, Route } from "./router.ts";

type Json = Record<string, unknown>;

export interface RouteDeclaration<D, H> {
  method: Method;
  /** The path, `{name}` for a segment the router hands the handler as `params.name`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  /** What each `{name}` of the path is, as the document describes it. */
  params?: Record<string, string>;
  /** The query parameters, as the handler parses them. */
  query?: z.ZodObject;
  /** Query parameters the schema does not hold (a page's cursor), as the document lists them. */
  parameters?: readonly Json[];
  /** The JSON body, as the handler parses it. */
  body?: z.ZodType;
  /** The answers other than problems. */
  answers: Responses;
  /** The codes this route answers besides those every route of its kind may. */
  errors: readonly ErrorCode[];
  /**
   * Answered once the caller's day is spent too, counted in the burst minute alone (docs/api.md, Limits): a key's
   * reading and cancelling of its own jobs, so that a day run out mid-job can still see it and stop it.
   */
  pastDay?: true;
  /** The handler, built from what the app is built from. */
  handler: (deps: D) => H;
}

/** A declared route's handler as the router holds it: built, beside its declaration. */
export interface BuiltRoute<D, H> {
  handle: H;
  declared: RouteDeclaration<D, H>;
}

/** The routes for a router, each handler built from `deps`. */
export function routesOf<D, H>(declarations: readonly RouteDeclaration<D, H>[], deps: D): Route<BuiltRoute<D, H>>[] {
  return declarations.map((declared) => ({
    method: declared.method,
    path: declared.path,
    handler: { handle: declared.handler(deps), declared },
  }));
}

/** The `paths` of an OpenAPI document: each route's operation, a GET with its HEAD twin, `common` codes on every one. */
export function pathsOf(
  declarations: readonly RouteDeclaration<never, unknown>[],
  common: readonly ErrorCode[],
): Record<string, Json> {
  const paths: Record<string, Json> = {};
  for (const declaration of declarations) {
    paths[declaration.path] = { ...paths[declaration.path], ...operationOf(declaration, common) };
  }
  return paths;
}

function operationOf(declaration: RouteDeclaration<never, unknown>, common: readonly ErrorCode[]): Json {
  const { operationId, summary, description, body } = declaration;
  const parameters = [
    ...Object.entries(declaration.params ?? {}).map(([name, about]) => pathParameter(name, about)),
    ...queryParameters(declaration.query),
    ...(declaration.parameters ?? []),
  ];
  const operation = {
    summary,
    ...(description === undefined ? {} : { description }),
    ...(parameters.length > 0 || declaration.query ? { parameters } : {}),
    ...(body
      ? { requestBody: { required: true, content: { "application/json": { schema: requestBodySchema(body) } } } }
      : {}),
    responses: { ...declaration.answers, ...problemResponses([...common, ...declaration.errors]) },
  };
  if (declaration.method === "GET") return withHead(operationId, operation);
  return { [declaration.method.toLowerCase()]: { operationId, ...operation } };
}

function pathParameter(name: string, description: string): Json {
  return { name, in: "path", required: true, description, schema: { type: "string" } };
}

/** The query's parameters as a caller sends them, before the schema turns `url` into a URL. */
function queryParameters(query: z.ZodObject | undefined): Json[] {
  if (!query) return [];
  const { properties, required = [] } = z.toJSONSchema(query, { target: "draft-2020-12", io: "input" }) as {
    properties: Record<string, Json>;
    required?: string[];
  };
  return Object.entries(properties).map(([name, { description, ...schema }]) => ({
    name,
    in: "query",
    required: required.includes(name),
    description,
    schema,
  }));
}
