import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { assertErrorShape } from "../testing/error-shape.ts";
import { startRateWindowApi, type RateWindowApi } from "../testing/rate-window-api.ts";
import type { TestApi } from "../testing/test-api.ts";

// The per-key rate windows are minutes of the API's clock: this one is set by the tests, and the waits of
// refusals answered from memory are counted instead of slept.
let api: RateWindowApi;
let t: TestApi;
let waits: number[];

before(async () => {
  api = await startRateWindowApi();
  ({ t, waits } = api);
});
after(() => t.close());

const usage = (key: string) => t.request("GET", "/v1/usage", { key });

test("429 RATE_LIMITED with Retry-After past the per-key rate", async () => {
  const limited = await t.createKey({ ratePerMinute: 5 });
  api.at(20);
  const statuses: number[] = [];
  for (let i = 0; i < 7; i++) statuses.push((await usage(limited.api_key)).status);
  assert.deepEqual(statuses, [200, 200, 200, 200, 200, 429, 429]);
  const refused = await usage(limited.api_key);
  assertErrorShape(refused.body, "RATE_LIMITED");
  assert.equal(refused.headers.get("retry-after"), "40", "until the minute ends");
  api.at(59.5);
  assert.equal((await usage(limited.api_key)).headers.get("retry-after"), "1", "never 0");
  api.at(60);
  assert.equal((await usage(limited.api_key)).status, 200, "the next minute is a new window");
});

test("requests with a wrong secret do not count against the key's rate", async () => {
  const owner = await t.createKey({ ratePerMinute: 3 });
  const guess = owner.api_key.slice(0, -4) + (owner.api_key.endsWith("AAAA") ? "BBBB" : "AAAA");
  for (let i = 0; i < 6; i++) assert.equal((await usage(guess)).status, 401);
  const windows = await t.database.db.selectFrom("rate_limit_windows").innerJoin("api_keys", "api_keys.id", "rate_limit_windows.api_key_id").select("count").where("api_keys.prefix", "=", owner.key_prefix).execute();
  assert.deepEqual(windows, []);
  assert.equal((await usage(owner.api_key)).status, 200);
});

const countedThisMinute = async (prefix: string) =>
  (
    await t.database.db
      .selectFrom("rate_limit_windows")
      .innerJoin("api_keys", "api_keys.id", "rate_limit_windows.api_key_id")
      .select("count")
      .where("api_keys.prefix", "=", prefix)
      .where("window_start", "=", api.minute)
      .executeTakeFirst()
  )?.count;

test("a key over its rate is refused from memory until its minute ends: further refusals are not counted", async () => {
  const limited = await t.createKey({ ratePerMinute: 2 });
  api.at(10);
  const statuses: number[] = [];
  waits.length = 0;
  for (let i = 0; i < 8; i++) statuses.push((await usage(limited.api_key)).status);
  assert.deepEqual(waits, [1000, 1000, 1000, 1000, 1000], "each refusal after the first waits a second");
  const polled = await t.request("GET", "/v1/jobs/job_01ARZ3NDEKTSV4RRFFQ69G5FAV", { key: limited.api_key });
  assert.deepEqual(statuses, [200, 200, 429, 429, 429, 429, 429, 429]);
  assert.equal(polled.status, 429, "polling takes the same refusal");
  assertErrorShape(polled.body, "RATE_LIMITED");
  assert.equal(polled.headers.get("retry-after"), "50");
  assert.equal(await countedThisMinute(limited.key_prefix), 3, "counted up to the first refusal, then not");
  api.at(60);
  assert.equal((await usage(limited.api_key)).status, 200, "the next minute is counted again");
});

test("a remembered refusal keeps the scope check first", async () => {
  const reader = await t.createKey({ ratePerMinute: 1, scopes: ["subtitles:read"] });
  api.at(30);
  assert.equal((await usage(reader.api_key)).status, 200);
  assert.equal((await usage(reader.api_key)).status, 429);
  const write = await t.request("POST", "/v1/subtitles", { key: reader.api_key, body: { video_url: "https://videos.example.com/a.mp4" } });
  assert.equal(write.status, 401, "a read key is refused a write for its scope, remembered or not");
  assertErrorShape(write.body, "INSUFFICIENT_SCOPE");
});
