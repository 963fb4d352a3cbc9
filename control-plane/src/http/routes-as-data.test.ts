import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Type } from "@sinclair/typebox";
import { startTestApi, type TestApi } from "../testing/test-api.ts";
import { buildOpenApiDocument } from "./openapi.ts";
import { error, json } from "./openapi-parts.ts";
import { defineRoute, type RouteSpec } from "./route-spec.ts";
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
  params: { word: { description: "The word to repeat" } },
  body: { schema: EchoRequestSchema, limit: "1kb", tooLargeIs413: true },
  idempotent: true,
  responses: {
    "200": { description: "The word, repeated", ...json(EchoResponseSchema) },
    "400": error("INVALID_REQUEST"),
    "413": error("PAYLOAD_TOO_LARGE"),
  },
  handle(ctx, { body, idempotencyKey }) {
    ctx.body = { echo: Array.from({ length: body.times }, () => ctx.params.word).join(" ") + (idempotencyKey ? ` (${idempotencyKey})` : "") };
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

  test("is published: path, parameters, scope, body and responses, its schemas among the components", async () => {
    const doc = (await t.request("GET", "/v1/openapi.json")).body;
    const operation = doc.paths["/v1/echo/{word}"].post;
    assert.equal(operation.operationId, "echoWord");
    assert.equal(operation["x-required-scope"], "subtitles:read");
    assert.deepEqual(operation.security, [{ bearerAuth: [] }]);
    assert.match(operation.description, /^A route declared in a test alone\. Needs an API key with the `subtitles:read` scope/);
    assert.deepEqual(operation.parameters.map((p: { name: string; in: string }) => `${p.in}:${p.name}`), ["path:word", "header:Idempotency-Key"]);
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
    ["a path parameter without its description", variant({ params: {} }), /differ from the path.s/],
    ["a parameter the path lacks", variant({ params: { word: { description: "w" }, other: { description: "o" } } }), /differ from the path's/],
    ["a 401 of its own beside its scope", variant({ responses: { ...echo.responses, "401": error("UNAUTHORIZED") } }), /401 follows from its scope/],
    ["a body but no 400", variant({ responses: without("400") }), /no 400 response/],
    ["a 413 body but no 413", variant({ responses: without("413") }), /no 413 response/],
    ["an unknown tag", variant({ doc: { ...echo.doc!, tags: ["Nope"] } }), /unknown tag/],
  ] as const) {
    test(name, () => assert.throws(() => buildOpenApiDocument("https://x.example", [route]), message));
  }
});
