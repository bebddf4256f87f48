// Every route under /api/v1/, declared once: the router (api.ts) and the OpenAPI document
// (openapi.ts) are both built from this list. A new route is one declaration in its feature's list.
import type { ApiHandler } from "../auth/api-context.ts";
import type { RouteDeclaration } from "../http/route.ts";
import { operationRoutes } from "../handlers/routes.ts";
import { jobRoutes } from "../jobs/routes.ts";
import { watchRoutes } from "../watches/routes.ts";
import { webhookRoutes } from "../webhooks/routes.ts";
import type { AppDeps } from "./deps.ts";

export type ApiRoute = RouteDeclaration<AppDeps, ApiHandler>;

export const apiRoutes: readonly ApiRoute[] = [...operationRoutes, ...jobRoutes, ...webhookRoutes, ...watchRoutes];
