import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { JOB_ID_PATTERN, WEBHOOK_ENDPOINT_ID_PATTERN } from "@caption/shared/api/ids";
import { UPLOAD_ID_PATTERN } from "@caption/shared/api/upload";
import { testId } from "@caption/shared/testing/ids";
import { insertCompletedJob } from "@caption/shared/testing/job-rows";
import { startTestApi, type TestApi } from "./test-api.ts";

/**
 * The API under test with one of everything a path can name, so a request can be valid: a write key without
 * practical rate or concurrency limits, a completed job whose files are on disk, a webhook endpoint and an
 * upload. Every URL in it points at the API's own loopback address.
 */
export interface PopulatedApi {
  t: TestApi;
  key: string;
  /** `https://127.0.0.1:<the API's port>`: the only origin a test's URLs name. */
  loopbackOrigin: string;
  ids: { job: string; webhookEndpoint: string; upload: string };
  /** An existing id for each id pattern a path parameter declares. */
  idsByPattern: Record<string, string>;
  /** Valid `expires=…&signature=…` queries: a download link of the job's SRT, the upload's URL. */
  signedQueries: { file: string; upload: string };
}

export async function startPopulatedApi(): Promise<PopulatedApi> {
  // Loopback webhook URLs are allowed, so a valid registration succeeds instead of failing as a private address.
  const t = await startTestApi({ ALLOW_PRIVATE_VIDEO_URLS: "true", PREVIEW_RATE_LIMIT_PER_MINUTE: "100000" });
  const { api_key: key, account_id: accountId } = await t.createKey({ credits: 1_000_000, concurrency: 1_000_000, ratePerMinute: 1_000_000 });
  const loopbackOrigin = `https://127.0.0.1:${new URL(t.url).port}`;
  const job = testId("job");
  await mkdir(path.join(t.dataDir, "files", job), { recursive: true });
  await writeFile(path.join(t.dataDir, "files", job, "captions.srt"), "1\n00:00:00,000 --> 00:00:01,000\nhello\n");
  await insertCompletedJob(t.database.db, { id: job, accountId, expiresAt: new Date(Date.now() + 24 * 3600_000) });
  const polled = await t.request("GET", `/v1/jobs/${job}`, { key });
  const endpoint = await t.request("POST", "/v1/webhook_endpoints", { key, body: { url: `${loopbackOrigin}/hook` } });
  const upload = await t.request("POST", "/v1/uploads", { key, body: { size_bytes: 16, filename: "clip.mp4" } });
  for (const [what, res, status] of [["job", polled, 200], ["webhook endpoint", endpoint, 201], ["upload", upload, 201]] as const) {
    if (res.status !== status) throw new Error(`the ${what} of the populated API answered ${res.status}: ${JSON.stringify(res.body)}`);
  }
  const ids = { job, webhookEndpoint: endpoint.body.id as string, upload: upload.body.id as string };
  return {
    t,
    key,
    loopbackOrigin,
    ids,
    idsByPattern: { [JOB_ID_PATTERN]: ids.job, [WEBHOOK_ENDPOINT_ID_PATTERN]: ids.webhookEndpoint, [UPLOAD_ID_PATTERN]: ids.upload },
    signedQueries: { file: new URL(polled.body.subtitles.srt_url).search.slice(1), upload: new URL(upload.body.upload_url).search.slice(1) },
  };
}
