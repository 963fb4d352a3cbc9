import assert from "node:assert/strict";
import { randomBytes, createHash } from "node:crypto";
import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { manualClock } from "@caption/shared/testing/manual-clock";
import { assertErrorShape } from "../testing/error-shape.ts";
import { startTestApi, type TestApi } from "../testing/test-api.ts";

let t: TestApi;
let key: string;
let otherKey: string;
const clock = manualClock(new Date());

before(async () => {
  t = await startTestApi({}, { now: clock.date });
  ({ api_key: key } = await t.createKey({ concurrency: 1000 }));
  ({ api_key: otherKey } = await t.createKey({ concurrency: 1000 }));
});
after(() => t.close());

const create = (body: unknown, apiKey = key) => t.request("POST", "/v1/uploads", { key: apiKey, body });
const tus = (url: string, method: string, headers: Record<string, string> = {}, body?: Buffer) =>
  fetch(url, { method, headers: { "Tus-Resumable": "1.0.0", ...headers }, body });
const patch = (url: string, offset: number, bytes: Buffer) =>
  tus(url, "PATCH", { "Upload-Offset": String(offset), "Content-Type": "application/offset+octet-stream" }, bytes);
const storedPath = (id: string) => path.join(t.dataDir, "files", "uploads", id);

describe("POST /v1/uploads", () => {
  test("answers 201 with the upload's id, a signed tus URL, its expiry and the largest size", async () => {
    const res = await create({ size_bytes: 1000, filename: "talk.mp4" });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.match(res.body.id, /^upl_[0-9A-Z]{26}$/);
    assert.match(res.body.upload_url, new RegExp(`^${t.url}/v1/uploads/${res.body.id}\\?expires=\\d+&signature=[\\w-]+$`));
    assert.equal(res.headers.get("location"), res.body.upload_url);
    assert.equal(new Date(res.body.expires_at).getTime(), clock.now() + 3600_000);
    assert.equal(res.body.max_bytes, 500 * 1024 * 1024);
    assert.equal((await stat(storedPath(res.body.id))).size, 0);
  });

  test("size_bytes over 500 MiB is 413 VIDEO_TOO_LARGE and creates nothing", async () => {
    const res = await create({ size_bytes: 500 * 1024 * 1024 + 1 });
    assert.equal(res.status, 413);
    assertErrorShape(res.body, "VIDEO_TOO_LARGE");
    assert.equal((await create({ size_bytes: 500 * 1024 * 1024 })).status, 201);
  });

  const invalid: [string, unknown][] = [
    ["no size", {}],
    ["size 0", { size_bytes: 0 }],
    ["size fraction", { size_bytes: 1.5 }],
    ["size string", { size_bytes: "10" }],
    ["filename with a slash", { size_bytes: 10, filename: "a/b.mp4" }],
    ["filename with a newline", { size_bytes: 10, filename: "a\nb.mp4" }],
    ["unknown field", { size_bytes: 10, url: "x" }],
  ];
  for (const [name, body] of invalid) {
    test(`400 INVALID_REQUEST: ${name}`, async () => {
      const res = await create(body);
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assertErrorShape(res.body, "INVALID_REQUEST");
    });
  }

  test("needs a key with subtitles:write", async () => {
    assert.equal((await t.request("POST", "/v1/uploads", { body: { size_bytes: 10 } })).status, 401);
    const { api_key: reader } = await t.createKey({ scopes: ["subtitles:read"] });
    assertErrorShape((await create({ size_bytes: 10 }, reader)).body, "INSUFFICIENT_SCOPE");
  });
});

describe("the upload URL (tus 1.0)", () => {
  test("takes the bytes in two PATCH requests, HEAD telling the offset between them; the job can then be submitted", async () => {
    const file = randomBytes(300_000);
    const { body: upload } = await create({ size_bytes: file.length });
    const head = await tus(upload.upload_url, "HEAD");
    assert.equal(head.status, 200);
    assert.equal(head.headers.get("upload-offset"), "0");
    assert.equal(head.headers.get("upload-length"), String(file.length));
    assert.equal(head.headers.get("tus-resumable"), "1.0.0");
    assert.ok(head.headers.get("upload-expires"));

    const first = await patch(upload.upload_url, 0, file.subarray(0, 100_000));
    assert.equal(first.status, 204);
    assert.equal(first.headers.get("upload-offset"), "100000");
    const early = await t.request("POST", "/v1/subtitles", { key, body: { upload_id: upload.id } });
    assert.equal(early.status, 409);
    assertErrorShape(early.body, "UPLOAD_INCOMPLETE");

    assert.equal((await tus(upload.upload_url, "HEAD")).headers.get("upload-offset"), "100000");
    const rest = await patch(upload.upload_url, 100_000, file.subarray(100_000));
    assert.equal(rest.status, 204);
    assert.equal(rest.headers.get("upload-offset"), String(file.length));
    assert.deepEqual(await readFile(storedPath(upload.id)), file);

    const job = await t.request("POST", "/v1/subtitles", { key, body: { upload_id: upload.id, preset: "karaoke" } });
    assert.equal(job.status, 202, JSON.stringify(job.body));
    const again = await t.request("POST", "/v1/subtitles", { key, body: { upload_id: upload.id, preset: "smash" } });
    assert.equal(again.status, 202, "a finished upload can be submitted again");
    const row = await t.database.db.selectFrom("jobs").select(["upload_id", "video_url"]).where("id", "=", job.body.id).executeTakeFirstOrThrow();
    assert.deepEqual(row, { upload_id: upload.id, video_url: null });
  });

  test("takes one PUT of the whole file", async () => {
    const file = randomBytes(64_000);
    const { body: upload } = await create({ size_bytes: file.length });
    const put = await fetch(upload.upload_url, { method: "PUT", body: file, headers: { "Content-Type": "video/mp4" } });
    assert.equal(put.status, 204, await put.text());
    assert.equal(createHash("sha256").update(await readFile(storedPath(upload.id))).digest("hex"), createHash("sha256").update(file).digest("hex"));
    assert.equal((await t.request("POST", "/v1/subtitles", { key, body: { upload_id: upload.id } })).status, 202);
  });

  test("more bytes than declared are refused and the upload stays unfinished", async () => {
    const { body: upload } = await create({ size_bytes: 1000 });
    const res = await patch(upload.upload_url, 0, randomBytes(1001));
    assert.equal(res.status, 413);
    assertErrorShape(await res.json(), "PAYLOAD_TOO_LARGE");
    assert.equal((await tus(upload.upload_url, "HEAD")).headers.get("upload-offset"), "0");
    const put = await fetch(upload.upload_url, { method: "PUT", body: randomBytes(2000) });
    assert.equal(put.status, 413);
    assert.equal((await stat(storedPath(upload.id))).size, 0);
    assertErrorShape((await t.request("POST", "/v1/subtitles", { key, body: { upload_id: upload.id } })).body, "UPLOAD_INCOMPLETE");
  });

  test("a wrong signature is 404 and an expired one 410, and nothing is written", async () => {
    const { body: upload } = await create({ size_bytes: 10 });
    const wrong = upload.upload_url.replace(/signature=./, (s: string) => (s.endsWith("A") ? `${s.slice(0, -1)}B` : `${s.slice(0, -1)}A`));
    const refused = await patch(wrong, 0, randomBytes(10));
    assert.equal(refused.status, 404);
    assertErrorShape(await refused.json(), "NOT_FOUND");
    assert.equal((await patch(upload.upload_url.replace(/\?.*/, ""), 0, randomBytes(10))).status, 404);
    const otherUpload = upload.upload_url.replace(upload.id, (await create({ size_bytes: 10 })).body.id);
    assert.equal((await patch(otherUpload, 0, randomBytes(10))).status, 404, "a signature is for its upload alone");
    const saved = clock.now();
    clock.set(saved + 3601_000);
    try {
      const late = await patch(upload.upload_url, 0, randomBytes(10));
      assert.equal(late.status, 410);
      assertErrorShape(await late.json(), "UPLOAD_EXPIRED");
      assertErrorShape((await t.request("POST", "/v1/subtitles", { key, body: { upload_id: upload.id } })).body, "UPLOAD_EXPIRED");
    } finally {
      clock.set(saved);
    }
    assert.equal((await stat(storedPath(upload.id))).size, 0);
  });

  test("termination: DELETE removes an unfinished upload", async () => {
    const { body: upload } = await create({ size_bytes: 10 });
    assert.equal((await tus(upload.upload_url, "DELETE")).status, 204);
    await assert.rejects(stat(storedPath(upload.id)), { code: "ENOENT" });
    assert.equal((await tus(upload.upload_url, "HEAD")).status, 410);
  });

  test("OPTIONS tells the tus version, extensions and largest size", async () => {
    const res = await fetch(`${t.url}/v1/uploads/upl_00000000000000000000000000`, { method: "OPTIONS" });
    assert.equal(res.status, 204);
    assert.equal(res.headers.get("tus-version"), "1.0.0");
    for (const extension of ["creation", "termination", "expiration"]) assert.ok(res.headers.get("tus-extension")?.includes(extension));
    assert.equal(res.headers.get("tus-max-size"), String(500 * 1024 * 1024));
  });
});

describe("POST /v1/subtitles with upload_id", () => {
  test("both sources or neither is 400", async () => {
    const { body: upload } = await create({ size_bytes: 10 });
    const both = await t.request("POST", "/v1/subtitles", { key, body: { upload_id: upload.id, video_url: "https://v.example/a.mp4" } });
    assert.equal(both.status, 400);
    assert.match(both.body.error.message, /either video_url or upload_id, not both/);
    const neither = await t.request("POST", "/v1/subtitles", { key, body: { preset: "karaoke" } });
    assert.equal(neither.status, 400);
    assert.match(neither.body.error.message, /video_url or upload_id is required/);
    assert.equal((await t.request("POST", "/v1/subtitles", { key, body: { upload_id: "upl_x" } })).status, 400);
  });

  test("another account's upload and an unknown one are 404", async () => {
    const { body: upload } = await create({ size_bytes: 10 });
    assert.equal((await fetch(upload.upload_url, { method: "PUT", body: randomBytes(10) })).status, 204);
    const theirs = await t.request("POST", "/v1/subtitles", { key: otherKey, body: { upload_id: upload.id } });
    assert.equal(theirs.status, 404);
    assertErrorShape(theirs.body, "NOT_FOUND");
    assert.equal((await t.request("POST", "/v1/subtitles", { key, body: { upload_id: "upl_00000000000000000000000000" } })).status, 404);
  });
});
