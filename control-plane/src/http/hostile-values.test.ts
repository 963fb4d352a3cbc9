import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { isErrorShape } from "../testing/error-shape.ts";
import { startPopulatedApi, type PopulatedApi } from "../testing/populated-api.ts";
import { jsonOf, rawBytes, rawRequest, type RawRequest } from "../testing/raw-http.ts";
import { UPLOADS_ROUTE } from "../services/upload-service.ts";
import { FILES_ROUTE_PREFIX } from "../storage/signed-url.ts";
import type { PathParam, RouteSpec } from "./route-spec.ts";
import { ROUTES } from "./routes.ts";

// A NUL, a lone surrogate and an overlong value in every place of every route (path parameters, query
// parameters, body fields, headers) are the client's error: a 4xx in the error shape, never a 500.
// Path parameters are checked against their shapes before anything runs (404, an unknown id's answer);
// whatever no check catches PostgreSQL refuses, and that too is a 400 (database-refusals.test.ts).

let api: PopulatedApi;
before(async () => {
  api = await startPopulatedApi();
});
after(() => api.t.close());

const OVERLONG = 10_000;
/** Hostile path and query values, written percent-encoded as a client puts them on the request line. */
const ON_THE_LINE: [string, (valid: string) => string][] = [
  ["a NUL", (valid) => `${valid}%00`],
  ["a lone surrogate", () => "%ED%A0%80"],
  ["an overlong value", () => "9".repeat(OVERLONG)],
];
/** Hostile JSON string values. */
const IN_A_BODY: [string, (valid: string) => string][] = [
  ["a NUL", (valid) => `${valid}\u0000`],
  ["a lone surrogate", (valid) => `${valid}\ud800`],
  ["an overlong value", () => "x".repeat(OVERLONG)],
];
/** Hostile header values, as latin-1 bytes (a NUL cannot be sent by an HTTP client: see the bare socket below). */
const IN_A_HEADER: [string, string][] = [
  ["a lone surrogate's bytes", "a\xed\xa0\x80"],
  ["an overlong value", "9".repeat(OVERLONG)],
];

/** A valid body of each route that takes one (a route added with a body needs one here). */
const validBody = (route: RouteSpec): Record<string, unknown> | undefined => {
  if (!route.body) return undefined;
  const examples: Record<string, Record<string, unknown>> = {
    "post /v1/subtitles": { video_url: `${api.loopbackOrigin}/clip.mp4`, language: "en", preset: "classic" },
    "post /v1/jobs/{id}/renders": { preset: "classic", words: [{ text: "hello", start: 0, end: 1 }] },
    "post /v1/uploads": { size_bytes: 16, filename: "clip.mp4" },
    "post /v1/webhook_endpoints": { url: `${api.loopbackOrigin}/hook`, events: ["job.completed"] },
    "post /v1/previews": { preset: "classic", width: 1080, height: 1920, format: "png", text: "hello", background: { job_id: api.ids.job, at: 0.5 } },
  };
  const example = examples[`${route.method} ${route.path}`];
  assert.ok(example, `${route.method} ${route.path} takes a body: give it a valid example here`);
  return example;
};

/** An existing value of a path parameter's shape: the populated API's id of its pattern, or one of its names. */
function validParam(param: PathParam): string {
  const { pattern, anyOf } = param.schema as { pattern?: string; anyOf?: { const: string }[] };
  const value = pattern ? api.idsByPattern[pattern] : anyOf?.map((option) => option.const).sort((a) => (a === "captions.srt" ? -1 : 0))[0];
  assert.ok(value, `no valid value known for ${JSON.stringify(param.schema)}`);
  return value;
}

const pathOf = (route: RouteSpec, replaced?: [string, string]): string =>
  route.path.replace(/\{(\w+)\}/g, (_, name: string) => (replaced?.[0] === name ? replaced[1] : encodeURIComponent(validParam(route.params![name]!))));

/** The query string of a valid request: a signed link's, or none. */
const validQuery = (route: RouteSpec): string =>
  route.path.startsWith(FILES_ROUTE_PREFIX) ? api.signedQueries.file : route.path.startsWith(`${UPLOADS_ROUTE}/`) ? api.signedQueries.upload : "";

function withQueryValue(query: string, name: string, value: string): string {
  const pairs = query === "" ? [] : query.split("&").filter((pair) => !pair.startsWith(`${name}=`));
  return [...pairs, `${name}=${value}`].join("&");
}

/** Every string in a JSON value, as [path, replace] pairs that give the value with that one string changed. */
function stringLeaves(value: unknown, rebuild: (changed: unknown) => unknown = (changed) => changed, at = ""): [string, (s: string) => unknown][] {
  if (typeof value === "string") return [[at || "(body)", (s) => rebuild(s)]];
  if (Array.isArray(value)) return value.flatMap((item, i) => stringLeaves(item, (changed) => rebuild(value.map((old, j) => (i === j ? changed : old))), `${at}[${i}]`));
  if (value && typeof value === "object") {
    return Object.entries(value).flatMap(([key, item]) => stringLeaves(item, (changed) => rebuild({ ...value, [key]: changed }), at ? `${at}.${key}` : key));
  }
  return [];
}

interface Case {
  what: string;
  request: RawRequest;
  /** The error code expected, or any answer but a 5xx (503 with Retry-After aside) with a 4xx in the error shape. */
  code?: string;
}

function requestOf(route: RouteSpec, change: { path?: string; query?: string; body?: unknown; headers?: Record<string, string> } = {}): RawRequest {
  const query = change.query ?? validQuery(route);
  const body = change.body ?? validBody(route);
  const headers: Record<string, string> = { authorization: `Bearer ${api.key}`, ...change.headers };
  if (body !== undefined) headers["content-type"] = "application/json";
  return { method: route.method.toUpperCase(), path: `${change.path ?? pathOf(route)}${query ? `?${query}` : ""}`, headers, body: body === undefined ? undefined : JSON.stringify(body) };
}

function casesOf(route: RouteSpec): Case[] {
  const cases: Case[] = [];
  for (const [name, param] of Object.entries(route.params ?? {})) {
    for (const [what, hostile] of ON_THE_LINE) {
      cases.push({ what: `${what} in the path's ${name}`, request: requestOf(route, { path: pathOf(route, [name, hostile(encodeURIComponent(validParam(param)))]) }), code: "NOT_FOUND" });
    }
  }
  const refusal = route.query?.refuse?.().code ?? "INVALID_REQUEST";
  for (const name of Object.keys(route.query?.schema.properties ?? {})) {
    for (const [what, hostile] of ON_THE_LINE) {
      cases.push({ what: `${what} in the query's ${name}`, request: requestOf(route, { query: withQueryValue(validQuery(route), name, hostile("1")) }), code: refusal });
    }
  }
  for (const [at, replace] of stringLeaves(validBody(route))) {
    for (const [what, hostile] of IN_A_BODY) cases.push({ what: `${what} in the body's ${at}`, request: requestOf(route, { body: replace(hostile("ok")) }) });
  }
  const headers = ["Authorization", "X-Request-Id", ...(route.idempotent ? ["Idempotency-Key"] : []), ...Object.keys(route.headers ?? {})];
  for (const header of headers) {
    for (const [what, value] of IN_A_HEADER) cases.push({ what: `${what} in ${header}`, request: requestOf(route, { headers: { [header.toLowerCase()]: value } }) });
  }
  return cases;
}

/** What is wrong with the answer to a case, or undefined. */
async function problemOf(route: RouteSpec, { what, request, code }: Case): Promise<string | undefined> {
  const res = await rawRequest(api.t.url, request);
  const body = jsonOf(res.text) as { error?: { code?: string } } | undefined;
  const answer = `${what}: ${res.status} ${res.text.slice(0, 200)}`;
  if (res.status >= 500 && !(res.status === 503 && res.headers["retry-after"])) return answer;
  if (code && res.status < 400) return `${answer} (expected ${code})`;
  if (res.status < 400 || route.method === "head") return undefined;
  if (!isErrorShape(body)) return `${answer} (not the error shape)`;
  if (code && body?.error?.code !== code) return `${answer} (expected ${code})`;
  if (!code && route.body && ![400, 413].includes(res.status) && what.includes("body")) return `${answer} (expected 400 or 413)`;
  return undefined;
}

describe("a NUL, a lone surrogate and an overlong value, wherever a request holds a value, are refused with a 4xx in the error shape", () => {
  // Deleting routes last: the valid requests of the others name what they delete.
  for (const route of [...ROUTES].sort((a, b) => Number(a.method === "delete") - Number(b.method === "delete"))) {
    test(`${route.method.toUpperCase()} ${route.path}`, async () => {
      // The valid request first: it is refused for none of the values the cases change, so their refusals are theirs.
      const valid = await rawRequest(api.t.url, requestOf(route));
      const code = (jsonOf(valid.text) as { error?: { code?: string } } | undefined)?.error?.code;
      const refusals = [route.body && "INVALID_REQUEST", route.params && "NOT_FOUND", route.query && (route.query.refuse?.().code ?? "INVALID_REQUEST")];
      assert.ok(valid.status < 500 || valid.status === 503, `the valid request answered ${valid.status} ${valid.text}`);
      assert.ok(!code || !refusals.includes(code), `the valid request was refused: ${valid.text}`);
      const problems: string[] = [];
      for (const one of casesOf(route)) {
        const problem = await problemOf(route, one);
        if (problem) problems.push(problem);
      }
      assert.deepEqual(problems, []);
    });
  }
});

describe("what the HTTP parser refuses before any route comes in the error shape too", () => {
  const refused = async (bytes: string, status: number) => {
    const res = await rawBytes(api.t.url, bytes);
    assert.match(res.statusLine, new RegExp(`^HTTP/1.1 ${status} `), res.head);
    // The answer to a HEAD has no body.
    if (bytes.startsWith("HEAD ")) {
      assert.equal(res.body, "");
      return { error: { code: "INVALID_REQUEST", message: "" } };
    }
    const body = jsonOf(res.body);
    assert.ok(isErrorShape(body), res.body);
    return body as { error: { code: string; message: string } };
  };

  for (const route of ROUTES) {
    test(`a NUL in a header of ${route.method.toUpperCase()} ${route.path}: 400`, async () => {
      const { method, path } = requestOf(route);
      const body = await refused(`${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Request-Id: a\u0000b\r\n\r\n`, 400);
      assert.equal(body.error.code, "INVALID_REQUEST");
    });
  }

  test("a request line and headers over 16 KiB: 431", async () => {
    const body = await refused(`GET /v1/jobs/${"9".repeat(20_000)} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`, 431);
    assert.match(body.error.message, /over 16 KiB/);
  });

  test("headers over 16 KiB followed by 3 MiB of body: the 431 is read, not reset by a close with the body unread", async () => {
    const res = await rawRequest(api.t.url, { method: "PUT", path: `/v1/uploads/${api.ids.upload}`, headers: { authorization: `Bearer ${"x".repeat(17_000)}` }, body: "y".repeat(3 << 20) });
    assert.equal(res.status, 431);
    assert.ok(isErrorShape(jsonOf(res.text)), res.text);
  });

  test("a request line that is no HTTP: 400", async () => {
    await refused("GET\u0000/ HTTP/1.1\r\n\r\n", 400);
  });
});
