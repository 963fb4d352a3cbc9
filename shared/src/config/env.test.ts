import assert from "node:assert/strict";
import { test } from "node:test";
import { EnvError, parseEnv } from "./env.ts";

test("defaults fill an empty environment", () => {
  const env = parseEnv({});
  assert.equal(env.PORT, 8080);
  assert.equal(env.DATA_DIR, "./.data");
  assert.equal(env.ALLOW_PRIVATE_VIDEO_URLS, false);
  assert.equal(env.WORKER_CONCURRENCY, 1);
  assert.equal(env.DATABASE_URL, undefined);
  assert.equal(env.TRUST_PROXY, false);
  assert.deepEqual(
    [env.DOWNLOAD_TIMEOUT_SECONDS, env.DOWNLOAD_MIN_BYTES_PER_SECOND, env.DOWNLOAD_THROUGHPUT_WINDOW_SECONDS, env.PROBE_TIMEOUT_SECONDS],
    [180, 65_536, 20, 15],
  );
  assert.deepEqual([env.PROCESSING_DEADLINE_BASE_SECONDS, env.PROCESSING_DEADLINE_FACTOR], [60, 0.8]);
});

test("values are converted and checked", () => {
  const env = parseEnv({ PORT: "9000", ALLOW_PRIVATE_VIDEO_URLS: "true", WORKER_CONCURRENCY: "3", DATABASE_URL: "postgres://u@h/db", TRUST_PROXY: "true", DOWNLOAD_THROUGHPUT_WINDOW_SECONDS: "0.5" });
  assert.equal(env.PORT, 9000);
  assert.equal(env.TRUST_PROXY, true);
  assert.equal(env.DOWNLOAD_THROUGHPUT_WINDOW_SECONDS, 0.5);
  assert.equal(env.ALLOW_PRIVATE_VIDEO_URLS, true);
  assert.equal(env.WORKER_CONCURRENCY, 3);
});

for (const [name, value] of [["PORT", "eighty"], ["ALLOW_PRIVATE_VIDEO_URLS", "yes"], ["ASR_ENGINE", "whisper.cpp"], ["DATABASE_URL", "mysql://x"], ["WORKER_CONCURRENCY", "0"], ["TRUST_PROXY", "1"], ["DOWNLOAD_MIN_BYTES_PER_SECOND", "-1"], ["PROBE_TIMEOUT_SECONDS", "0"]] as const) {
  test(`a bad ${name} stops start-up naming the variable`, () => {
    assert.throws(() => parseEnv({ [name]: value }), (error: unknown) => error instanceof EnvError && error.message.includes(name));
  });
}
