import type { RouterContext } from "@koa/router";
import type { Static, TSchema } from "@sinclair/typebox";
import type { Scope } from "@caption/shared/api/scopes";
import type { ServiceError } from "../services/service-error.ts";
import type { AppDeps } from "./app-deps.ts";
import type { AppState } from "./app-state.ts";

// An endpoint declared once, as data (schema-first, the way fastify declares routes): the Koa router
// (router.ts) and the OpenAPI `paths` (openapi.ts) are both generated from the same list (routes.ts).

export type HttpMethod = "get" | "post" | "delete";

/** Who may call the route: anyone, or a bearer key with a scope, checked by middleware or by the handler's own statement. */
export type RouteAuth = "none" | { scope: Scope; checkedBy: "middleware" | "handler" };

export interface RouteBody<B extends TSchema> {
  /** Validates the parsed body before the handler runs; 400 INVALID_REQUEST names the first wrong field. */
  schema: B;
  /** The schema the document publishes when the route checks part of the body later (render words); default `schema`. */
  documentAs?: TSchema;
  /** Largest body, as @koa/bodyparser reads it ("64kb"). */
  limit: string;
  /** Over the limit: 413 PAYLOAD_TOO_LARGE, else 400 like any unparsable body. */
  tooLargeIs413: boolean;
}

export interface RouteQuery<Q extends TSchema> {
  schema: Q;
  /** The refusal of a query that does not match the schema (a download link's 403, say). */
  refuse: () => ServiceError;
}

export interface ParamDoc {
  description: string;
  /** JSON Schema of the value; default a string. */
  schema?: object;
}

export interface OperationDoc {
  operationId: string;
  tags: string[];
  summary: string;
  /** An authenticated route's description gets the sentence naming its scope appended. */
  description: string;
}

/** What the generated middleware hands the route's handler. */
export interface RouteInput<B extends TSchema, Q extends TSchema> {
  deps: AppDeps;
  /** The body, validated against `body.schema`; undefined for routes without one. */
  body: Static<B>;
  /** The `Idempotency-Key` header of an idempotent route (400 when malformed), checked after the body. */
  idempotencyKey: string | undefined;
  /** The query, validated on first call (so the handler decides which refusal comes first). */
  query: () => Static<Q>;
  /** Every route the server was built from (the OpenAPI document describes them). */
  routes: readonly RouteSpec[];
}

export interface RouteSpec<B extends TSchema = TSchema, Q extends TSchema = TSchema> {
  method: HttpMethod;
  /** OpenAPI path template (`/v1/jobs/{id}`); the router gets `/v1/jobs/:id`. */
  path: string;
  /** The published operation; absent for endpoints outside the API (health, the docs page and its assets). */
  doc?: OperationDoc;
  auth: RouteAuth;
  /** One entry per `{name}` in the path, and no other. */
  params?: Record<string, ParamDoc>;
  query?: RouteQuery<Q>;
  body?: RouteBody<B>;
  /** Accepts an `Idempotency-Key` header. */
  idempotent?: boolean;
  /** Other request headers the handler reads, with their descriptions. */
  headers?: Record<string, string>;
  /** Status → OpenAPI response object (openapi-parts.ts builds them from TypeBox schemas). */
  responses: Record<string, object>;
  /** Registered only when this holds (the local file route, when results are stored locally). */
  enabled?: (deps: AppDeps) => boolean;
  // Method syntax: a route typed with its own body schema still fits a list of RouteSpec.
  handle(ctx: RouterContext<AppState>, input: RouteInput<B, Q>): Promise<void> | void;
}

/** Keeps the handler's body and query typed by the route's own schemas. */
export const defineRoute = <B extends TSchema = TSchema, Q extends TSchema = TSchema>(route: RouteSpec<B, Q>): RouteSpec => route as unknown as RouteSpec;

/** `{id}` → `:id`. */
export const koaPath = (path: string): string => path.replace(/\{(\w+)\}/g, ":$1");

/** The names of a path template's parameters, in order. */
export const pathParams = (path: string): string[] => [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!);
