import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Type } from "@sinclair/typebox";
import { assertErrorShape } from "../testing/error-shape.ts";
import { startTestApi, type TestApi } from "../testing/test-api.ts";
import { buildOpenApiDocument } from "./openapi.ts";
import { error, json } from "./openapi-parts.ts";
import type { AppDeps } from "./app-deps.ts";
import { defineRoute, type RouteSpec } from "./route-spec.ts";
import { buildRouter } from "./router.ts";
import { ROUTES } from "./routes.ts";

// One declaration makes an endpoint: a route written only in this test is served (authenticated, its
// body validated) and published (path, parameters, scope, body and responses) without another line elsewhere.

const EchoRequestSchema = Type.Object({ times: Type.Integer({ minimum: 1, maximum: 3 }) }, { additionalProperties: false, $id: "EchoRequest" });
const EchoResponseSchema = Type.Object({ echo: Type.String() }, { additionalProperties: false, $id: "EchoResponse" });

const echo = defineRoute({
  method: "post",
  path: "/v1/echo/{word}",
  doc: { operationId: "echoWord", tags: ["Usage"], summary: "Says a word again", description: "A route declared in a test alone." },
  auth: { scope: "subtitles:read", checkedBy: "middleware" },
  params: { word: { names: "word", schema: Type.String({ pattern: "^[a-z]{1,12}$", description: "The word to repeat." }) } },
  query: { schema: Type.Object({ gap: Type.Optional(Type.Integer({ minimum: 1, maximum: 3, description: "Spaces between the words" })) }) },
  body: { schema: EchoRequestSchema, limit: "1kb", tooLargeIs413: true },
  idempotent: true,
  responses: {
    "200": { description: "The word, repeated", ...json(EchoResponseSchema) },
    "400": error("INVALID_REQUEST"),
    "413": error("PAYLOAD_TOO_LARGE"),
  },
  handle(ctx, { body, idempotencyKey, query }) {
    ctx.body = { echo: Array.from({ length: body.times }, () => ctx.params.word).join(" ".repeat(query.gap ?? 1)) + (idempotencyKey ? ` (${idempotencyKey})` : "") };
  },
});

let t: TestApi;
let key: string;
before(async () => {
  t = await startTestApi({}, { routes: [...ROUTES, echo] });
  ({ api_key: key } = await t.createKey({ scopes: ["subtitles:read"] }));
});
after(() => t.close());

describe("a route declared once", () => {
  test("is served: key, body schema and Idempotency-Key are checked before its handler", async () => {
    const ok = await t.request("POST", "/v1/echo/hello", { key, body: { times: 2 }, headers: { "idempotency-key": "k1" } });
    assert.equal(ok.status, 200);
    assert.deepEqual(ok.body, { echo: "hello hello (k1)" });
    assert.equal((await t.request("POST", "/v1/echo/hello", { body: { times: 2 } })).status, 401);
    const bad = await t.request("POST", "/v1/echo/hello", { key, body: { times: 4 } });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.code, "INVALID_REQUEST");
    assert.match(bad.body.error.message, /times must be between 1 and 3/);
    const badKey = await t.request("POST", "/v1/echo/hello", { key, body: { times: 1 }, headers: { "idempotency-key": "two words" } });
    assert.equal(badKey.status, 400);
    const big = await t.request("POST", "/v1/echo/hello", { key, rawBody: JSON.stringify({ times: 1, pad: "x".repeat(2048) }), headers: { "content-type": "application/json" } });
    assert.equal(big.status, 413);
    assert.equal((await t.request("GET", "/v1/echo/hello", { key })).status, 405, "only its declared method");
  });

  test("its path parameter is checked against its shape first: another is 404 NOT_FOUND, key or not, before anything runs", async () => {
    for (const word of ["Hello", "a%00b", "%ED%A0%80", "x".repeat(13), "hello%2Fthere"]) {
      for (const options of [{ key, body: { times: 1 } }, { body: { times: 9 } }]) {
        const res = await t.request("POST", `/v1/echo/${word}`, options);
        assert.equal(res.status, 404, `${word}: ${JSON.stringify(res.body)}`);
        assertErrorShape(res.body, "NOT_FOUND");
        assert.equal(res.body.error.message, "word not found");
      }
    }
  });

  test("its query is validated after the key, a number read from its decimal text: anything else is 400 naming the parameter", async () => {
    const spaced = await t.request("POST", "/v1/echo/hi?gap=2", { key, body: { times: 2 } });
    assert.deepEqual(spaced.body, { echo: "hi  hi" });
    for (const [query, message] of [
      ["gap=4", /^query: gap must be between 1 and 3$/],
      ["gap=1e0", /^query: gap: Expected integer$/],
      ["gap=0x2", /^query: gap: Expected integer$/],
      ["gap=%00", /^query: gap: Expected integer$/],
      ["gap=1&gap=2", /^query: gap: Expected integer$/],
    ] as const) {
      const res = await t.request("POST", `/v1/echo/hi?${query}`, { key, body: { times: 1 } });
      assert.equal(res.status, 400, `${query}: ${JSON.stringify(res.body)}`);
      assertErrorShape(res.body, "INVALID_REQUEST");
      assert.match(res.body.error.message, message);
    }
    assert.equal((await t.request("POST", "/v1/echo/hi?gap=9", { body: { times: 1 } })).status, 401, "the key first");
  });

  test("is published: path, parameters, scope, body and responses, its schemas among the components", async () => {
    const doc = (await t.request("GET", "/v1/openapi.json")).body;
    const operation = doc.paths["/v1/echo/{word}"].post;
    assert.equal(operation.operationId, "echoWord");
    assert.equal(operation["x-required-scope"], "subtitles:read");
    assert.deepEqual(operation.security, [{ bearerAuth: [] }]);
    assert.match(operation.description, /^A route declared in a test alone\. Needs an API key with the `subtitles:read` scope/);
    assert.deepEqual(operation.parameters.map((p: { name: string; in: string }) => `${p.in}:${p.name}`), ["path:word", "query:gap", "header:Idempotency-Key"]);
    assert.deepEqual(operation.parameters[0], {
      name: "word",
      in: "path",
      required: true,
      description: "The word to repeat. A value of another shape is 404 NOT_FOUND.",
      schema: { type: "string", pattern: "^[a-z]{1,12}$" },
    });
    assert.deepEqual(operation.requestBody.content["application/json"].schema, { $ref: "#/components/schemas/EchoRequest" });
    // 415 comes with any body: bodies are read as sent, an encoded one refused (json-body.ts).
    assert.deepEqual(Object.keys(operation.responses), ["200", "400", "401", "413", "415", "429"]);
    // 401 and 429 come with the key, the 401 from the scope: a read key cannot lack subtitles:read.
    assert.match(operation.responses["401"].description, /UNAUTHORIZED.*INSUFFICIENT_SCOPE does not occur/);
    const writer = buildOpenApiDocument("https://x.example", [{ ...echo, auth: { scope: "subtitles:write", checkedBy: "middleware" } }]).paths["/v1/echo/{word}"]?.post as { responses: Record<string, { description: string }> };
    assert.match(writer.responses["401"]?.description ?? "", /without the subtitles:write scope \(INSUFFICIENT_SCOPE\)/);
    assert.deepEqual(doc.components.schemas.EchoRequest, JSON.parse(JSON.stringify({ ...EchoRequestSchema, $id: undefined })));
    assert.ok(doc.components.schemas.EchoResponse);
  });

  test("the API without it neither serves nor publishes it", async () => {
    assert.equal(buildOpenApiDocument("https://x.example", ROUTES).paths["/v1/echo/{word}"], undefined);
    const plain = await startTestApi();
    try {
      const { api_key } = await plain.createKey();
      assert.equal((await plain.request("POST", "/v1/echo/hello", { key: api_key, body: { times: 1 } })).status, 404);
    } finally {
      await plain.close();
    }
  });
});

describe("a declaration that contradicts itself is refused when the document is built", () => {
  const variant = (change: Partial<RouteSpec>): RouteSpec => ({ ...echo, ...change });
  const without = (status: string) => Object.fromEntries(Object.entries(echo.responses).filter(([code]) => code !== status));
  for (const [name, route, message] of [
    ["a path parameter without its shape", variant({ params: {} }), /differ from the path.s/],
    ["a parameter the path lacks", variant({ params: { ...echo.params, other: echo.params!.word! } }), /differ from the path's/],
    ["a 401 of its own beside its scope", variant({ responses: { ...echo.responses, "401": error("UNAUTHORIZED") } }), /401 follows from its scope/],
    ["a body but no 400", variant({ responses: without("400") }), /no 400 response/],
    ["a 413 body but no 413", variant({ responses: without("413") }), /no 413 response/],
    ["an unknown tag", variant({ doc: { ...echo.doc!, tags: ["Nope"] } }), /unknown tag/],
  ] as const) {
    test(name, () => assert.throws(() => buildOpenApiDocument("https://x.example", [route]), message));
  }

  test("a path parameter without its shape is refused when the router is built, in the document or not", () => {
    const { doc: _doc, ...unpublished } = echo;
    for (const route of [echo, unpublished]) assert.throws(() => buildRouter([{ ...route, params: {} }], {} as AppDeps), /POST \/v1\/echo\/\{word\}: params {2}differ from the path's/);
  });
});
