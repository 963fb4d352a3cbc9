import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { insertCompletedJob } from "@caption/shared/testing/job-rows";
import { assertErrorShape } from "../testing/error-shape.ts";
import { startTestApi, type TestApi } from "../testing/test-api.ts";
import { testId } from "@caption/shared/testing/ids";

// The body of POST /v1/jobs/{id}/renders, against a completed source row (no worker: the new jobs
// stay queued). The new job, its source and Idempotency-Key: render-request.test.ts.

let t: TestApi;
let key: string;
let accountId: string;
// The source row lasts 3 s (insertCompletedJob).
const DURATION = 3;
const word = (text: string, start: number, end: number) => ({ text, start, end });
const WORDS = [word("Hello", 0.2, 0.5), word("world", 0.6, 1)];

before(async () => {
  t = await startTestApi();
  ({ api_key: key, account_id: accountId } = await t.createKey({ concurrency: 1000 }));
});
after(() => t.close());

const renders = (id: string, body: unknown) => t.request("POST", `/v1/jobs/${id}/renders`, { key, body });

describe("the render request body is validated as strictly as a submission", () => {
  let source: string;
  before(async () => {
    source = testId("job");
    await insertCompletedJob(t.database.db, { id: source, accountId, expiresAt: new Date(Date.now() + 3600_000) });
  });
  const many = (n: number) => Array.from({ length: n }, (_, i) => word(`w${i}`, (i * DURATION) / n, (i * DURATION) / n));
  const invalid: [string, unknown, RegExp][] = [
    ["body is an array", [], /JSON object/],
    ["body is null", null, /JSON object/],
    ["unknown top-level field", { foo: 1 }, /unknown field foo/],
    ["video_url is a submission's field", { video_url: "https://a.example/v.mp4" }, /unknown field video_url/],
    ["preset null", { preset: null }, /preset must not be null/],
    ["preset unknown", { preset: "fancy" }, /preset must be one of/],
    ["style null", { style: null }, /style must not be null/],
    ["unknown style field", { style: { glow: true } }, /unknown field style\.glow/],
    ["style color shorthand", { style: { text_color: "#fff" } }, /style\.text_color must be a #RRGGBB hex color/],
    ["words null", { words: null }, /words must not be null/],
    ["words not an array", { words: "hello" }, /words/],
    ["words empty", { words: [] }, /words must not be empty/],
    ["more than 20 000 words", { words: many(20_001) }, /words must hold at most 20000 items/],
    ["word null", { words: [WORDS[0], null] }, /words\[1\] must not be null/],
    ["unknown word field", { words: [WORDS[0], { ...WORDS[1], confidence: 0.5 }] }, /unknown field words\[1\]\.confidence/],
    ["word text missing", { words: [{ start: 0, end: 1 }] }, /words\[0\]\.text is required/],
    ["word text null", { words: [WORDS[0], { ...WORDS[1], text: null }] }, /words\[1\]\.text must not be null/],
    ["word text empty", { words: [WORDS[0], word("", 0.6, 1)] }, /words\[1\]\.text must not be empty/],
    ["word text blank", { words: [WORDS[0], word("   ", 0.6, 1)] }, /words\[1\]\.text must not be blank/],
    ["word text 101 characters", { words: [word("a".repeat(101), 0, 1)] }, /words\[0\]\.text must be at most 100 characters/],
    ["word text with a line break", { words: [WORDS[0], word("two\nlines", 0.6, 1)] }, /words\[1\]\.text must not contain control characters/],
    ["word text with a tab", { words: [word("a\tb", 0, 1)] }, /words\[0\]\.text must not contain control characters/],
    ["word text with a C1 control", { words: [word("a\u0085b", 0, 1)] }, /words\[0\]\.text must not contain control characters/],
    ["start missing", { words: [WORDS[0], { text: "x", end: 1 }] }, /words\[1\]\.start is required/],
    ["start a string", { words: [word("x", "0.5" as never, 1)] }, /words\[0\]\.start/],
    ["start negative", { words: [WORDS[0], word("x", -0.1, 1)] }, /words\[1\]\.start must be at least 0$/],
    ["end before start", { words: [WORDS[0], word("x", 0.9, 0.8), word("y", 0.95, 1)] }, /words\[1\]\.end must not be before words\[1\]\.start/],
    ["end past the duration", { words: [WORDS[0], word("late", 2.5, DURATION + 0.1)] }, /words\[1\]\.end must be within the video's 3 s/],
    ["starts going back", { words: [...WORDS, word("back", 0.55, 0.7)] }, /words\[2\]\.start must not be before words\[1\]\.start/],
    // The first bad word is named whatever rule it breaks: shape (type, length, characters) or time.
    ["a time error before a shape error", { words: [word("a", 0.5, 0.6), word("b", 0.4, 0.6), ...WORDS.slice(1), word("c", 1, 1), word("d\te", 1, 2)] }, /^words\[1\]\.start must not be before words\[0\]\.start/],
    ["an end past the duration before a text too long", { words: [word("a", 0, 0.5), word("b", 1, DURATION + 1), word("c", 2, 2), word("x".repeat(101), 2, 2)] }, /^words\[1\]\.end must be within the video's 3 s/],
    ["a blank text before an unknown field", { words: [word("a", 0, 0.5), word(" ", 1, 1), { ...word("c", 2, 2), confidence: 1 }] }, /^words\[1\]\.text must not be blank/],
    ["end before start before a null word", { words: [word("a", 0, 0.5), word("b", 1, 0.9), null] }, /^words\[1\]\.end must not be before words\[1\]\.start/],
    ["a shape error before a time error", { words: [word("a", 0, 0.5), word("b\u0007", 1, 1), word("c", 0.1, 0.2)] }, /^words\[1\]\.text must not contain control characters/],
    ["a missing field before a time error", { words: [word("a", 0, 0.5), { text: "b", start: 1 }, word("c", 2, DURATION + 5)] }, /^words\[1\]\.end is required/],
    ["a negative start before an end past the duration", { words: [word("a", -1, 0.5), word("b", 1, DURATION + 5)] }, /^words\[0\]\.start must be at least 0$/],
  ];
  for (const [name, body, message] of invalid) {
    test(`${name} → 400 INVALID_REQUEST`, async () => {
      const res = await renders(source, body);
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assertErrorShape(res.body, "INVALID_REQUEST");
      assert.match(res.body.error.message, message);
    });
  }

  const valid: [string, unknown][] = [
    ["an empty body (everything inherited)", {}],
    ["a preset alone", { preset: "karaoke" }],
    ["a style alone", { style: { position: "top", outline: { thickness: 0 } } }],
    ["words at the edges: start 0, end = duration, equal starts, zero-length words", { words: [word("a", 0, 0), word("b", 0, 1), word("c", 3, 3)] }],
    ["an end a rounding error past the duration", { words: [word("a", 2, DURATION + 0.0004)] }],
    ["100 characters, inner spaces and non-ASCII", { words: [word(`${"é".repeat(49)} ${"字".repeat(50)}`, 0, 1)] }],
    ["20 000 words", { words: many(20_000) }],
  ];
  for (const [name, body] of valid) {
    test(`${name} → 202`, async () => {
      const res = await renders(source, body);
      assert.equal(res.status, 202, JSON.stringify(res.body).slice(0, 300));
    });
  }

  // The body limit, and the 20 000 words of real text it was sized from: request-bodies.test.ts.
  test("a body over 4 MiB is 413 PAYLOAD_TOO_LARGE; a body that is not JSON is 400", async () => {
    const huge = await t.request("POST", `/v1/jobs/${source}/renders`, { key, rawBody: JSON.stringify({ words: [word("x".repeat(4 * 1024 * 1024), 0, 1)] }), headers: { "content-type": "application/json" } });
    assert.equal(huge.status, 413);
    assertErrorShape(huge.body, "PAYLOAD_TOO_LARGE");
    const broken = await t.request("POST", `/v1/jobs/${source}/renders`, { key, rawBody: "{not json", headers: { "content-type": "application/json" } });
    assert.equal(broken.status, 400);
    const form = await t.request("POST", `/v1/jobs/${source}/renders`, { key, rawBody: "preset=box", headers: { "content-type": "application/x-www-form-urlencoded" } });
    assert.equal(form.status, 400);
  });
});
