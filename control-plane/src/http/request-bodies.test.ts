import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
import { MAX_EDITED_WORDS, MAX_RENDER_BODY_BYTES } from "@caption/shared/api/render-request";
import { insertCompletedJob } from "@caption/shared/testing/job-rows";
import { assertErrorShape } from "../testing/error-shape.ts";
import { measureRenderBodies, realisticRenderBody } from "../testing/realistic-render-body.ts";
import { startTestApi, type TestApi } from "../testing/test-api.ts";
import { testId } from "@caption/shared/testing/ids";

// What the API reads of a request body before it does any work: encoded bodies refused, the render
// body's limit sized from measured words, and the render source looked up before its body is read.

let t: TestApi;
let key: string;
let otherKey: string;
const SOURCE = testId("job");
const OTHERS = testId("job");
const JSON_TYPE = { "content-type": "application/json" };

before(async () => {
  t = await startTestApi();
  const mine = await t.createKey({ concurrency: 1000 });
  key = mine.api_key;
  const other = await t.createKey();
  otherKey = other.api_key;
  const expiresAt = new Date(Date.now() + 3600_000);
  await insertCompletedJob(t.database.db, { id: SOURCE, accountId: mine.account_id, expiresAt });
  await insertCompletedJob(t.database.db, { id: OTHERS, accountId: other.account_id, expiresAt });
});
after(() => t.close());

describe("an encoded request body is 415 UNSUPPORTED_MEDIA_TYPE, never inflated", () => {
  // 16 MiB of zeros in a word list: a few kilobytes once compressed.
  const bomb = Buffer.from(JSON.stringify({ words: new Array(8 * 1024 * 1024).fill(0) }));
  const encodings: [string, (b: Buffer) => Buffer][] = [
    ["gzip", gzipSync],
    ["deflate", deflateSync],
    ["br", brotliCompressSync],
    ["GZIP", gzipSync],
  ];
  for (const [encoding, encode] of encodings) {
    for (const [name, path] of [
      ["a render request", `/v1/jobs/${SOURCE}/renders`],
      ["a submission", "/v1/subtitles"],
      ["a webhook endpoint", "/v1/webhook_endpoints"],
      ["a preview", "/v1/previews"],
    ]) {
      test(`${name} sent with Content-Encoding: ${encoding}`, async () => {
        const rawBody = encode(bomb);
        assert.ok(rawBody.length < 64 * 1024, `${rawBody.length} bytes encoded`);
        const res = await t.request("POST", path ?? "", { key, rawBody, headers: { ...JSON_TYPE, "content-encoding": encoding } });
        assert.equal(res.status, 415, JSON.stringify(res.body));
        assertErrorShape(res.body, "UNSUPPORTED_MEDIA_TYPE");
        assert.match(res.body.error.message, /Content-Encoding/);
      });
    }
  }

  test("Content-Encoding: identity is the body as sent", async () => {
    const res = await t.request("POST", `/v1/jobs/${SOURCE}/renders`, { key, rawBody: "{}", headers: { ...JSON_TYPE, "content-encoding": "identity" } });
    assert.equal(res.status, 202, JSON.stringify(res.body));
  });
});

describe("the render body limit is sized from what 20 000 words of real text weigh", () => {
  test("the limit leaves at least 25 % above the heaviest measured body of a 600 s video's 20 000 words", () => {
    const heaviest = measureRenderBodies(MAX_EDITED_WORDS, 600)[0];
    assert.ok(heaviest);
    assert.ok(MAX_RENDER_BODY_BYTES >= heaviest.bytes * 1.25, `${MAX_RENDER_BODY_BYTES} < 1.25 × ${heaviest.bytes} (${heaviest.language}, ${heaviest.format})`);
    assert.ok(MAX_RENDER_BODY_BYTES <= heaviest.bytes * 2, `${MAX_RENDER_BODY_BYTES} is more than twice what words need (${heaviest.bytes})`);
  });

  test("20 000 words of the heaviest measured kind (Cyrillic, escaped, indented) are accepted", async () => {
    const rawBody = realisticRenderBody({ language: "russian", words: MAX_EDITED_WORDS, seconds: 3, format: "pretty-ascii-escaped" });
    assert.ok(rawBody.length > 2_500_000, `${rawBody.length} bytes`);
    const res = await t.request("POST", `/v1/jobs/${SOURCE}/renders`, { key, rawBody, headers: JSON_TYPE });
    assert.equal(res.status, 202, JSON.stringify(res.body).slice(0, 300));
  });

  test("one byte over the limit is 413 PAYLOAD_TOO_LARGE", async () => {
    const padding = (size: number) => `{"preset":"karaoke"${" ".repeat(size - 20)}}`;
    assert.equal(padding(MAX_RENDER_BODY_BYTES).length, MAX_RENDER_BODY_BYTES);
    const atLimit = await t.request("POST", `/v1/jobs/${SOURCE}/renders`, { key, rawBody: padding(MAX_RENDER_BODY_BYTES), headers: JSON_TYPE });
    assert.equal(atLimit.status, 202, JSON.stringify(atLimit.body));
    const over = await t.request("POST", `/v1/jobs/${SOURCE}/renders`, { key, rawBody: padding(MAX_RENDER_BODY_BYTES + 1), headers: JSON_TYPE });
    assert.equal(over.status, 413);
    assertErrorShape(over.body, "PAYLOAD_TOO_LARGE");
  });
});

describe("a render body for no job of the caller's is never read: 404 before parsing", () => {
  const bodies: [string, string | Buffer, Record<string, string>][] = [
    ["a body that is not JSON", "{not json", JSON_TYPE],
    ["a body over the limit", `{"words":[${"0,".repeat(MAX_RENDER_BODY_BYTES)}0]}`, JSON_TYPE],
    ["an encoded body", gzipSync("{}"), { ...JSON_TYPE, "content-encoding": "gzip" }],
    ["a form body", "preset=box", { "content-type": "application/x-www-form-urlencoded" }],
  ];
  for (const [name, rawBody, headers] of bodies) {
    for (const [whose, path] of [
      ["no such job", `/v1/jobs/${testId("job")}/renders`],
      ["another account's job", `/v1/jobs/${OTHERS}/renders`],
    ]) {
      test(`${name} for ${whose} → 404 NOT_FOUND`, async () => {
        const res = await t.request("POST", path ?? "", { key, rawBody, headers });
        assert.equal(res.status, 404, JSON.stringify(res.body));
        assertErrorShape(res.body, "NOT_FOUND");
      });
    }
  }

  test("the owner of that other job still gets its body read (400 for the same broken body)", async () => {
    const res = await t.request("POST", `/v1/jobs/${OTHERS}/renders`, { key: otherKey, rawBody: "{not json", headers: JSON_TYPE });
    assert.equal(res.status, 400);
  });
});
