import type { TSchema } from "@sinclair/typebox";
import { invalidRequest, notFound } from "../services/service-error.ts";
import type { RouteSpec } from "./route-spec.ts";
import { createValidator } from "./validation.ts";

/** A route's checks of its path parameters and query string, compiled once when the router is built. */
export interface RequestShape {
  /** Throws 404 NOT_FOUND (the route's `names`) for the first path parameter that does not match its shape. */
  checkParams(params: Record<string, string | undefined>): void;
  /** The query, numbers converted, or throws the route's refusal (default 400 INVALID_REQUEST naming the parameter). */
  parseQuery(query: Record<string, string | string[] | undefined>): unknown;
}

// Decimal text only: "1e3", "0x10" and " 5" stay strings and fail a number's schema rather than becoming another number.
const DECIMAL = /^-?(0|[1-9][0-9]{0,14})(\.[0-9]{1,15})?$/;

export function requestShape(route: RouteSpec): RequestShape {
  const params = Object.entries(route.params ?? {}).map(([name, param]) => ({ name, names: param.names, validator: createValidator(param.schema) }));
  const query = route.query;
  const validator = query && createValidator(query.schema);
  const properties = Object.entries((query?.schema.properties ?? {}) as Record<string, TSchema>);
  const numeric = new Set(properties.filter(([, schema]) => schema.type === "integer" || schema.type === "number").map(([name]) => name));
  return {
    checkParams(values) {
      for (const { name, names, validator } of params) if (!validator.check(values[name])) throw notFound(names);
    },
    parseQuery(values) {
      if (!query || !validator) return undefined;
      const converted: Record<string, unknown> = { ...values };
      for (const name of numeric) {
        const text = converted[name];
        if (typeof text === "string" && DECIMAL.test(text)) converted[name] = Number(text);
      }
      if (validator.check(converted)) return converted;
      if (query.refuse) throw query.refuse();
      throw invalidRequest(`query: ${validator.problemAt(converted, "")}`);
    },
  };
}
