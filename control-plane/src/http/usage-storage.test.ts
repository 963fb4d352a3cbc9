import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { insertCompletedJob } from "@caption/shared/testing/job-rows";
import { startTestApi, type TestApi } from "../testing/test-api.ts";

// GET /v1/usage's stored_bytes: what the account's kept files take, each source video once.

let t: TestApi;
before(async () => {
  t = await startTestApi();
});
after(() => t.close());

test("stored_bytes sums kept outputs and each distinct source video once; expired files and other accounts do not count", async () => {
  const { api_key: key, account_id: accountId } = await t.createKey();
  const other = await t.createKey();
  const hour = new Date(Date.now() + 3600_000);
  const source = (sha: string, bytes: number) => ({ source_sha256: sha, source_bytes: bytes });
  assert.equal((await t.request("GET", "/v1/usage", { key })).body.stored_bytes, 0);

  // A caption job and two render jobs of its video: the 500 MiB source counts once.
  await insertCompletedJob(t.database.db, { id: "job_u_caption", accountId, expiresAt: hour, row: { stored_bytes: 1000, ...source("a".repeat(64), 500 * 1024 * 1024) } });
  await insertCompletedJob(t.database.db, { id: "job_u_render1", accountId, expiresAt: hour, row: { kind: "render", source_job_id: "job_u_caption", stored_bytes: 700, ...source("a".repeat(64), 500 * 1024 * 1024) } });
  await insertCompletedJob(t.database.db, { id: "job_u_render2", accountId, expiresAt: hour, row: { kind: "render", source_job_id: "job_u_render1", stored_bytes: 300, ...source("a".repeat(64), 500 * 1024 * 1024) } });
  // Another video of the account's, one whose files expired, and another account's.
  await insertCompletedJob(t.database.db, { id: "job_u_second", accountId, expiresAt: hour, row: { stored_bytes: 50, ...source("b".repeat(64), 2000) } });
  await insertCompletedJob(t.database.db, { id: "job_u_gone", accountId, expiresAt: new Date(Date.now() - 1000), row: { stored_bytes: 9999, files_deleted_at: new Date(), ...source("c".repeat(64), 9999) } });
  await insertCompletedJob(t.database.db, { id: "job_u_other", accountId: other.account_id, expiresAt: hour, row: { stored_bytes: 123, ...source("d".repeat(64), 456) } });

  const usage = await t.request("GET", "/v1/usage", { key });
  assert.equal(usage.status, 200);
  assert.equal(usage.body.stored_bytes, 1000 + 700 + 300 + 500 * 1024 * 1024 + 50 + 2000);
  assert.equal((await t.request("GET", "/v1/usage", { key: other.api_key })).body.stored_bytes, 123 + 456);
});
