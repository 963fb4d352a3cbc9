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
});

test("values are converted and checked", () => {
  const env = parseEnv({ PORT: "9000", ALLOW_PRIVATE_VIDEO_URLS: "true", WORKER_CONCURRENCY: "3", DATABASE_URL: "postgres://u@h/db" });
  assert.equal(env.PORT, 9000);
  assert.equal(env.ALLOW_PRIVATE_VIDEO_URLS, true);
  assert.equal(env.WORKER_CONCURRENCY, 3);
});

for (const [name, value] of [["PORT", "eighty"], ["ALLOW_PRIVATE_VIDEO_URLS", "yes"], ["ASR_ENGINE", "whisper.cpp"], ["DATABASE_URL", "mysql://x"], ["WORKER_CONCURRENCY", "0"]] as const) {
  test(`a bad ${name} stops start-up naming the variable`, () => {
    assert.throws(() => parseEnv({ [name]: value }), (error: unknown) => error instanceof EnvError && error.message.includes(name));
  });
}
