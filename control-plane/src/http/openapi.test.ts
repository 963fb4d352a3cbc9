import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { compileErrors, validate } from "@readme/openapi-parser";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { insertCompletedJob } from "@caption/shared/testing/job-rows";
import { startTestApi, type TestApi } from "../testing/test-api.ts";
import { testId } from "@caption/shared/testing/ids";

// The published document must describe the server that publishes it: it is valid OpenAPI 3.1, and
// a client validating with its SubmissionRequest schema accepts exactly what the server accepts.

const VIDEO = "https://videos.example.com/clip.mp4";
const v = (extra: Record<string, unknown>) => ({ video_url: VIDEO, ...extra });
const styled = (style: Record<string, unknown>) => v({ style });

const BODIES: [string, unknown][] = [
  // body shape
  ["minimal", v({})],
  ["body is an array", []],
  ["body is a string", "x"],
  ["body is a number", 42],
  ["body is null", null],
  ["unknown top-level field", v({ foo: 1 })],
  // video_url
  ["video_url missing", {}],
  ["video_url null", { video_url: null }],
  ["video_url number", { video_url: 5 }],
  ["video_url http", { video_url: "http://a.example/v.mp4" }],
  ["video_url ftp", { video_url: "ftp://a.example/v.mp4" }],
  ["video_url relative", { video_url: "/v.mp4" }],
  ["video_url scheme only", { video_url: "https://" }],
  ["video_url uppercase scheme", { video_url: "HTTPS://a.example/v.mov" }],
  ["video_url with query and fragment", { video_url: "https://a.example/v.webm?sig=abc&x=1#t=2" }],
  ["video_url with port and userinfo", { video_url: "https://user:pw@a.example:8443/v.mp4" }],
  ["video_url IPv6 host", { video_url: "https://[2001:db8::1]/v.mp4" }],
  ["video_url percent-encoded path", { video_url: "https://a.example/my%20clip.mp4" }],
  ["video_url space in path", { video_url: "https://a.example/my clip.mp4" }],
  ["video_url non-ASCII path", { video_url: "https://a.example/vidéo.mp4" }],
  ["video_url non-ASCII host", { video_url: "https://bücher.example/v.mp4" }],
  ["video_url bad percent escape", { video_url: "https://a.example/100%.mp4" }],
  ["video_url backslash", { video_url: "https://a.example\\v.mp4" }],
  ["video_url port out of range", { video_url: "https://a.example:99999/v.mp4" }],
  ["video_url 4096 chars", { video_url: `https://a.example/${"a".repeat(4096 - 18)}` }],
  ["video_url 4097 chars", { video_url: `https://a.example/${"a".repeat(4097 - 18)}` }],
  // preset, language, max_duration_seconds
  ["every preset field", v({ preset: "thin&bold", language: "eng", max_duration_seconds: 600 })],
  ["preset unknown", v({ preset: "fancy" })],
  ["preset wrong case", v({ preset: "Classic" })],
  ["preset null", v({ preset: null })],
  ["language two letters", v({ language: "de" })],
  ["language uppercase", v({ language: "EN" })],
  ["language four letters", v({ language: "engl" })],
  ["language region tag", v({ language: "en-US" })],
  ["max_duration_seconds 1", v({ max_duration_seconds: 1 })],
  ["max_duration_seconds 0", v({ max_duration_seconds: 0 })],
  ["max_duration_seconds 601", v({ max_duration_seconds: 601 })],
  ["max_duration_seconds fraction", v({ max_duration_seconds: 10.5 })],
  ["max_duration_seconds string", v({ max_duration_seconds: "60" })],
  // output
  ["output overlay", v({ output: { kind: "overlay" } })],
  ["output both", v({ output: { kind: "both" } })],
  ["output kind unknown", v({ output: { kind: "transparent" } })],
  ["output without kind", v({ output: {} })],
  ["output with another field", v({ output: { kind: "burned", alpha: true } })],
  // style: enums
  ["style empty", styled({})],
  ["style null", v({ style: null })],
  ["style unknown field", styled({ glow: true })],
  ["position top", styled({ position: "top" })],
  ["position middle", styled({ position: "middle" })],
  ["horizontal_position centre", styled({ horizontal_position: "centre" })],
  ["text_alignment justify", styled({ text_alignment: "justify" })],
  ["font_family bundled with space", styled({ font_family: "Permanent Marker" })],
  ["font_family custom", styled({ font_family: "Comic Sans MS" })],
  ["font_family URL", styled({ font_family: "https://fonts.example/x.ttf" })],
  ["font_weight 400", styled({ font_weight: 400 })],
  ["font_weight 500", styled({ font_weight: 500 })],
  ["font_weight string", styled({ font_weight: "700" })],
  ["font_style oblique", styled({ font_style: "oblique" })],
  ["text_case capitalize", styled({ text_case: "capitalize" })],
  ["text_case title", styled({ text_case: "title" })],
  ["text_width huge", styled({ text_width: "huge" })],
  ["line_count 0 and 100", styled({ line_count: 100 })],
  ["line_count 4", styled({ line_count: 4 })],
  // style: colors
  ["text_color mixed case hex", styled({ text_color: "#aBcDeF" })],
  ["text_color shorthand", styled({ text_color: "#fff" })],
  ["text_color with alpha", styled({ text_color: "#ffffffff" })],
  ["text_color named", styled({ text_color: "white" })],
  ["highlight_color without #", styled({ highlight_color: "ff00ff" })],
  ["background.color rgb()", styled({ background: { color: "rgb(0,0,0)" } })],
  // style: numeric ranges
  ["font_size bounds and fraction", styled({ font_size: 12.5 })],
  ["font_size 240", styled({ font_size: 240 })],
  ["font_size 11", styled({ font_size: 11 })],
  ["font_size 241", styled({ font_size: 241 })],
  ["scale 0.2", styled({ scale: 0.2 })],
  ["scale 0.1", styled({ scale: 0.1 })],
  ["scale 1.5", styled({ scale: 1.5 })],
  ["offset at bounds", styled({ offset: { left: -1920, top: 1920, right: 0, bottom: -1920 } })],
  ["offset.left -1921", styled({ offset: { left: -1921 } })],
  ["offset unknown key", styled({ offset: { x: 1 } })],
  ["offset null", styled({ offset: null })],
  // style: nested groups
  ["nested groups empty", styled({ background: {}, outline: {}, shadow: {}, offset: {} })],
  ["background full", styled({ background: { type: "box-rounded", color: "#123456", opacity: 0 } })],
  ["background.type pill", styled({ background: { type: "pill" } })],
  ["background.opacity 1.1", styled({ background: { opacity: 1.1 } })],
  ["background unknown key", styled({ background: { radius: 2 } })],
  ["outline thickness 0", styled({ outline: { color: "#ffffff", thickness: 0 } })],
  ["outline.thickness 21", styled({ outline: { thickness: 21 } })],
  ["outline.color null", styled({ outline: { color: null } })],
  ["shadow full", styled({ shadow: { enabled: false, color: "#000000", blur: 40, distance: 20, angle: -180 } })],
  ["shadow.enabled string", styled({ shadow: { enabled: "true" } })],
  ["shadow.blur 41", styled({ shadow: { blur: 41 } })],
  ["shadow.distance 21", styled({ shadow: { distance: 21 } })],
  ["shadow.angle 181", styled({ shadow: { angle: 181 } })],
  ["shadow unknown key", styled({ shadow: { x: 2 } })],
];

let t: TestApi;
let key: string;
let doc: { openapi: string; servers: { url: string }[]; paths: Record<string, unknown>; components: { schemas: Record<string, object> } };
const ajv = new Ajv2020({ allErrors: true, strict: true });
addFormats.default(ajv);
let schemaOf: (name: string) => ValidateFunction;

before(async () => {
  t = await startTestApi();
  ({ api_key: key } = await t.createKey({ concurrency: 100_000, credits: 600 }));
  const res = await t.request("GET", "/v1/openapi.json");
  assert.equal(res.status, 200);
  doc = res.body;
  const compiled = new Map<string, ValidateFunction>();
  schemaOf = (name) => {
    const schema = doc.components.schemas[name];
    assert.ok(schema, `components.schemas.${name} is missing`);
    if (!compiled.has(name)) compiled.set(name, ajv.compile(schema));
    return compiled.get(name) as ValidateFunction;
  };
});
after(() => t.close());

describe("GET /v1/openapi.json", () => {
  test("is a valid OpenAPI 3.1 document describing this server", async () => {
    assert.equal(doc.openapi, "3.1.0");
    assert.equal(doc.servers[0]?.url, t.url);
    const result = await validate(structuredClone(doc) as never);
    assert.ok(result.valid, compileErrors(result));
    assert.deepEqual(Object.keys(doc.paths).sort(), [
      "/v1/files/{job}/{file}", "/v1/jobs/{id}", "/v1/jobs/{id}/cancel", "/v1/jobs/{id}/events", "/v1/jobs/{id}/renders", "/v1/presets", "/v1/previews", "/v1/subtitles", "/v1/uploads",
      "/v1/uploads/{id}", "/v1/usage", "/v1/webhook_endpoints", "/v1/webhook_endpoints/{id}", "/v1/webhook_endpoints/{id}/deliveries", "/v1/webhook_endpoints/{id}/enable",
    ]);
  });

  test("every path parameter shows its shape, a pattern or the names it may be, and what another is", () => {
    const paths = doc.paths as Record<string, Record<string, { parameters?: { in: string; name: string; description: string; schema: any }[] }>>;
    const params = Object.values(paths)
      .flatMap((methods) => Object.values(methods))
      .flatMap((operation) => operation.parameters ?? [])
      .filter((parameter) => parameter.in === "path");
    assert.ok(params.length >= 12);
    for (const { name, description, schema } of params) {
      assert.ok(typeof schema.pattern === "string" || schema.anyOf?.every((option: { const?: unknown }) => typeof option.const === "string"), `${name}: ${JSON.stringify(schema)}`);
      assert.match(description, /A value of another shape is 404 NOT_FOUND\.$/);
    }
    assert.deepEqual(paths["/v1/jobs/{id}"]!.get!.parameters![0]!.schema, { type: "string", pattern: "^job_[0-9A-HJKMNP-TV-Z]{26}$" });
  });

  test("every component schema is a valid JSON Schema 2020-12", () => {
    for (const name of Object.keys(doc.components.schemas)) schemaOf(name);
  });

  test("the server's responses match their documented schemas", async () => {
    const check = (name: string, body: unknown) => {
      const valid = schemaOf(name);
      assert.ok(valid(body), `${name}: ${ajv.errorsText(valid.errors)} in ${JSON.stringify(body).slice(0, 300)}`);
    };
    check("PresetList", (await t.request("GET", "/v1/presets")).body);
    const created = await t.request("POST", "/v1/subtitles", { key, body: v({}) });
    check("SubmissionResponse", created.body);
    check("Job", (await t.request("GET", `/v1/jobs/${created.body.id}`, { key })).body);
    check("CancelResponse", (await t.request("POST", `/v1/jobs/${created.body.id}/cancel`, { key })).body);
    check("Usage", (await t.request("GET", "/v1/usage", { key })).body);
    check("Upload", (await t.request("POST", "/v1/uploads", { key, body: { size_bytes: 10, filename: "talk.mp4" } })).body);
    check("Error", (await t.request("POST", "/v1/uploads", { key, body: { size_bytes: 600 * 1024 * 1024 } })).body);
    check("Error", (await t.request("GET", "/v1/usage")).body);
    check("Error", (await t.request("POST", "/v1/subtitles", { key, body: {} })).body);
    const endpoint = await t.request("POST", "/v1/webhook_endpoints", { key, body: { url: "https://hooks.example.com/captions" } });
    check("WebhookEndpointCreated", endpoint.body);
    check("WebhookEndpointList", (await t.request("GET", "/v1/webhook_endpoints", { key })).body);
    check("WebhookDeliveryList", (await t.request("GET", `/v1/webhook_endpoints/${endpoint.body.id}/deliveries`, { key })).body);
  });
});

describe("the documented SubmissionRequest schema accepts exactly what the server accepts", () => {
  for (const [name, body] of BODIES) {
    test(name, async () => {
      const res = await t.request("POST", "/v1/subtitles", { key, rawBody: JSON.stringify(body), headers: { "content-type": "application/json" } });
      assert.ok(res.status === 202 || res.status === 400, `unexpected ${res.status}: ${JSON.stringify(res.body)}`);
      const validate = schemaOf("SubmissionRequest");
      const documented = validate(body);
      const served = res.status === 202;
      assert.equal(
        documented,
        served,
        served
          ? `the server accepts it but the schema rejects it: ${ajv.errorsText(validate.errors)}`
          : `the server rejects it (${res.body.error?.message}) but the schema accepts it`,
      );
    });
  }
});

// Shapes only: the time rules (end ≤ duration, starts in order, start ≤ end) need the source job and are
// stated in the operation's description.
const RENDER_BODIES: [string, unknown][] = [
  ["empty", {}],
  ["preset and style", { preset: "thin&bold", style: { position: "top", outline: { thickness: 0 } } }],
  ["words", { words: [{ text: "Hello", start: 0, end: 0.5 }, { text: "New York", start: 0.5, end: 1 }] }],
  ["unknown field", { video_url: VIDEO }],
  ["preset null", { preset: null }],
  ["style unknown field", { style: { glow: true } }],
  ["words empty", { words: [] }],
  ["words null", { words: null }],
  ["word with confidence", { words: [{ text: "a", start: 0, end: 1, confidence: 1 }] }],
  ["word text empty", { words: [{ text: "", start: 0, end: 1 }] }],
  ["word text 100 characters", { words: [{ text: "a".repeat(100), start: 0, end: 1 }] }],
  ["word text 101 characters", { words: [{ text: "a".repeat(101), start: 0, end: 1 }] }],
  ["word text with a newline", { words: [{ text: "a\nb", start: 0, end: 1 }] }],
  ["word text with DEL", { words: [{ text: "a\u007fb", start: 0, end: 1 }] }],
  ["word start negative", { words: [{ text: "a", start: -1, end: 1 }] }],
  ["word end missing", { words: [{ text: "a", start: 0 }] }],
  ["output overlay", { output: { kind: "overlay" } }],
  ["output kind unknown", { output: { kind: "alpha" } }],
];

describe("the documented RenderRequest schema accepts exactly the shapes the server accepts", () => {
  let source: string;
  before(async () => {
    const owner = await t.database.db.selectFrom("api_keys").select("account_id").executeTakeFirstOrThrow();
    source = testId("job");
    await insertCompletedJob(t.database.db, { id: source, accountId: owner.account_id, expiresAt: new Date(Date.now() + 3600_000) });
  });
  for (const [name, body] of RENDER_BODIES) {
    test(name, async () => {
      const res = await t.request("POST", `/v1/jobs/${source}/renders`, { key, body });
      assert.ok(res.status === 202 || res.status === 400, `unexpected ${res.status}: ${JSON.stringify(res.body)}`);
      const validate = schemaOf("RenderRequest");
      assert.equal(validate(body), res.status === 202, res.status === 202 ? ajv.errorsText(validate.errors) : res.body.error?.message);
    });
  }
});
