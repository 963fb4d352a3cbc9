import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { assertErrorShape } from "../testing/error-shape.ts";
import { startTestApi, type TestApi } from "../testing/test-api.ts";

// The per-key rate windows are minutes of the API's clock: this one is set by the tests.
const MINUTE = Math.floor(Date.now() / 60_000) * 60_000;
const secondsIntoMinute = (seconds: number) => new Date(MINUTE + seconds * 1000);
let clock = secondsIntoMinute(20);
let t: TestApi;

before(async () => {
  t = await startTestApi({}, { now: () => clock });
});
after(() => t.close());

const usage = (key: string) => t.request("GET", "/v1/usage", { key });

test("429 RATE_LIMITED with Retry-After past the per-key rate", async () => {
  const limited = await t.createKey({ ratePerMinute: 5 });
  clock = secondsIntoMinute(20);
  const statuses: number[] = [];
  for (let i = 0; i < 7; i++) statuses.push((await usage(limited.api_key)).status);
  assert.deepEqual(statuses, [200, 200, 200, 200, 200, 429, 429]);
  const refused = await usage(limited.api_key);
  assertErrorShape(refused.body, "RATE_LIMITED");
  assert.equal(refused.headers.get("retry-after"), "40", "until the minute ends");
  clock = secondsIntoMinute(59.5);
  assert.equal((await usage(limited.api_key)).headers.get("retry-after"), "1", "never 0");
  clock = secondsIntoMinute(60);
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
