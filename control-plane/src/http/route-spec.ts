import type { RouterContext } from "@koa/router";
import type { Static, TSchema } from "@sinclair/typebox";
import type { Scope } from "@caption/shared/api/scopes";
import type { ServiceError } from "../services/service-error.ts";
import type { AppDeps } from "./app-deps.ts";
import type { AppState } from "./app-state.ts";

// An endpoint declared once, as data (schema-first, the way fastify declares routes): the Koa router
// (router.ts) and the OpenAPI `paths` (openapi.ts) are both generated from the same list (routes.ts).

export type HttpMethod = "get" | "post" | "delete" | "head" | "patch" | "put" | "options";

/** Who may call the route: anyone, or a bearer key with a scope, checked by middleware or by the handler's own statement. */
export type RouteAuth = "none" | { scope: Scope; checkedBy: "middleware" | "handler" };

export interface RouteBody<B extends TSchema> {
  /** Validates the parsed body before the handler runs; 400 INVALID_REQUEST names the first wrong field. */
  schema: B;
  /** The schema the document publishes when the route checks part of the body later (render words); default `schema`. */
  documentAs?: TSchema;
  /** Largest body, as @koa/bodyparser reads it ("64kb", or bytes). */
  limit: string | number;
  /** Over the limit: 413 PAYLOAD_TOO_LARGE, else 400 like any unparsable body. */
  tooLargeIs413: boolean;
}

export interface RouteQuery<Q extends TSchema> {
  /**
   * An object schema of the query string's parameters, each a string (with a pattern or a set of values) or a
   * number: a parameter declared as an integer or number is converted from its decimal text before the check.
   * A repeated parameter is an array, and fails a scalar's schema.
   */
  schema: Q;
  /** The refusal of a query that does not match the schema (a download link's 403, say); default 400 INVALID_REQUEST naming the parameter. */
  refuse?: () => ServiceError;
}

/**
 * A path parameter's shape (a TypeBox string schema: an id's pattern, a file name from a list; its description
 * is the parameter's) and what it names. A value that does not match names nothing: the router answers 404
 * NOT_FOUND `<names> not found`, as for an unknown id, before authentication and any query.
 */
export interface PathParam {
  schema: TSchema;
  names: string;
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
  /** The query, validated against `query.schema` after authentication and before the body is read; undefined for routes without one. */
  query: Static<Q>;
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
  /** One entry per `{name}` in the path, and no other (path-params.ts holds the ids'). */
  params?: Record<string, PathParam>;
  query?: RouteQuery<Q>;
  body?: RouteBody<B>;
  /** A check made after authentication and before the body is read at all (a render's source being the caller's job). */
  beforeBody?: (ctx: RouterContext<AppState>, deps: AppDeps) => Promise<void>;
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

/** Throws when a route's declared path parameters are not exactly its path's: every one has a shape, and only those. */
export function assertParamsDeclared(route: Pick<RouteSpec, "method" | "path" | "params">): void {
  const declared = Object.keys(route.params ?? {});
  if (pathParams(route.path).join() !== declared.join()) throw new Error(`${route.method.toUpperCase()} ${route.path}: params ${declared.join()} differ from the path's`);
}
