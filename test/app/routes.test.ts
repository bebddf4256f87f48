// One declaration per route: the router and the OpenAPI document are built from the same list, so
// a route added is served and described, and what callers see stays as it was unless the document
// file changes with it (a change read in review: `npx vitest run test/app/routes.test.ts -u` writes it).
import { describe, expect, it } from "vitest";
import type { ApiHandler } from "../../src/auth/api-context.ts";
import { buildOpenApiDocument } from "../../src/app/openapi.ts";
import { type ApiRoute, apiRoutes } from "../../src/app/routes.ts";
import type { AppDeps } from "../../src/app/deps.ts";
import { jsonAnswer } from "../../src/http/openapi-parts.ts";
import { routesOf } from "../../src/http/route.ts";
import { createRouter } from "../../src/http/router.ts";

type Json = Record<string, any>;

const thingHandler: ApiHandler = async (ctx) => Response.json({ id: ctx.params.id });
const thing: ApiRoute = {
  method: "GET",
  path: "/api/v1/things/{id}",
  params: { id: "The thing's id" },
  operationId: "getThing",
  summary: "A thing",
  answers: jsonAnswer(200, "Thing", "The thing"),
  errors: ["not_found"],
  handler: () => thingHandler,
};

describe("the routes", () => {
  it("keep the document callers see: paths, operations, schemas and codes as the file holds them", async () => {
    await expect(`${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`).toMatchFileSnapshot("openapi-document.json");
  });

  it("are served and described from one declaration each: a route added is in the router and the document", () => {
    const routes = [...apiRoutes, thing];
    const router = createRouter(routesOf(routes, {} as AppDeps));
    expect(router.match("GET", "/api/v1/things/a%20b")).toMatchObject({
      handler: { handle: thingHandler },
      params: { id: "a b" },
    });
    expect(router.match("HEAD", "/api/v1/things/x")).toMatchObject({
      handler: { handle: thingHandler },
      params: { id: "x" },
    });
    expect(router.match("POST", "/api/v1/things/x")).toEqual({ allow: ["GET", "HEAD"] });
    const document = buildOpenApiDocument(routes) as Json;
    expect(document.paths["/api/v1/things/{id}"].get).toMatchObject({
      operationId: "getThing",
      parameters: [{ name: "id", in: "path", required: true, description: "The thing's id" }],
    });
    expect(document.paths["/api/v1/things/{id}"].head.operationId).toBe("headGetThing");
    expect(document.paths["/api/v1/things/{id}"].get.responses).toHaveProperty("404");
    expect(buildOpenApiDocument() as Json).not.toHaveProperty(["paths", "/api/v1/things/{id}"]);
  });

  it("describe each path of the router, and the router serves each path of the document under /api/v1/", () => {
    const router = createRouter(routesOf(apiRoutes, {} as AppDeps));
    const document = buildOpenApiDocument() as Json;
    const apiPaths = Object.keys(document.paths).filter((path) => path.startsWith("/api/v1/"));
    for (const path of apiPaths.filter((path) => path !== "/api/v1/openapi.json")) {
      const concrete = path.replaceAll("{id}", "0f0e0d0c-0b0a-4908-8706-050403020100");
      for (const method of Object.keys(document.paths[path])) {
        expect(router.match(method.toUpperCase(), concrete), `${method} ${path}`).toHaveProperty("handler");
      }
    }
    for (const route of apiRoutes) {
      expect(document.paths[route.path], route.path).toHaveProperty(route.method.toLowerCase());
    }
  });
});
