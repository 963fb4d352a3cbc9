import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { after, before, test } from "node:test";
import { GetObjectCommand } from "@aws-sdk/client-s3";
import { createS3Client } from "@caption/shared/storage/s3-client";
import { startLoopbackS3, type LoopbackS3 } from "@caption/shared/testing/loopback-s3";
import { assertErrorShape } from "../testing/error-shape.ts";
import { startTestApi, type TestApi } from "../testing/test-api.ts";

const MiB = 1024 * 1024;
let s3: LoopbackS3;
let t: TestApi;
let key: string;

before(async () => {
  s3 = await startLoopbackS3();
  // Credentials come from the SDK's provider chain, which reads the process's environment.
  Object.assign(process.env, { AWS_ACCESS_KEY_ID: s3.env.AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY: s3.env.AWS_SECRET_ACCESS_KEY });
  t = await startTestApi({ STORAGE_URL: `s3://${s3.bucket}/tenant-a`, AWS_ENDPOINT_URL_S3: s3.env.AWS_ENDPOINT_URL_S3, AWS_REGION: s3.env.AWS_REGION });
  ({ api_key: key } = await t.createKey());
});
after(async () => {
  await t?.close();
  await s3?.close();
});

const patch = (url: string, offset: number, bytes: Buffer) =>
  fetch(url, { method: "PATCH", headers: { "Tus-Resumable": "1.0.0", "Upload-Offset": String(offset), "Content-Type": "application/offset+octet-stream" }, body: bytes });
const offsetOf = async (url: string) => Number((await fetch(url, { method: "HEAD", headers: { "Tus-Resumable": "1.0.0" } })).headers.get("upload-offset"));

test("with S3 storage the bytes go to the bucket under the storage prefix; S3 refusing mid-upload is 503 with Retry-After and the offset stays what S3 holds", async () => {
  const file = randomBytes(20 * MiB);
  const created = await t.request("POST", "/v1/uploads", { key, body: { size_bytes: file.length } });
  assert.equal(created.status, 201);
  const url: string = created.body.upload_url;
  assert.equal((await patch(url, 0, file.subarray(0, 9 * MiB))).status, 204);
  const stored = await offsetOf(url);
  assert.equal(stored, 9 * MiB);

  s3.refuseWrites = true;
  try {
    const refused = await patch(url, stored, file.subarray(stored, stored + 9 * MiB));
    assert.equal(refused.status, 503);
    assert.equal(refused.headers.get("retry-after"), "5");
    assertErrorShape(await refused.json(), "SERVICE_UNAVAILABLE");
  } finally {
    s3.refuseWrites = false;
  }
  const after = await offsetOf(url);
  assert.ok(after >= stored && after <= 18 * MiB, `offset ${after}`);
  assert.equal((await patch(url, after, file.subarray(after))).status, 204);

  const object = await createS3Client(s3.env).send(new GetObjectCommand({ Bucket: s3.bucket, Key: `tenant-a/uploads/${created.body.id}` }));
  const body = Buffer.from(await object.Body!.transformToByteArray());
  assert.equal(createHash("sha256").update(body).digest("hex"), createHash("sha256").update(file).digest("hex"));
  assert.equal((await t.request("POST", "/v1/subtitles", { key, body: { upload_id: created.body.id } })).status, 202);
});
