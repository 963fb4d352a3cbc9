import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import { EnvError } from "../config/env.ts";
import { parseStorageUrl } from "./storage-location.ts";

test("unset STORAGE_URL is DATA_DIR/files; file:// names a directory", () => {
  assert.deepEqual(parseStorageUrl({ DATA_DIR: "./d" }), { kind: "local", root: path.resolve("./d/files") });
  assert.deepEqual(parseStorageUrl({ DATA_DIR: "./d", STORAGE_URL: "file:///srv/results" }), { kind: "local", root: "/srv/results" });
});

test("s3:// gives the bucket and a key prefix ending in /", () => {
  assert.deepEqual(parseStorageUrl({ DATA_DIR: "x", STORAGE_URL: "s3://captions" }), { kind: "s3", bucket: "captions", prefix: "" });
  assert.deepEqual(parseStorageUrl({ DATA_DIR: "x", STORAGE_URL: "s3://captions/" }), { kind: "s3", bucket: "captions", prefix: "" });
  assert.deepEqual(parseStorageUrl({ DATA_DIR: "x", STORAGE_URL: "s3://my.bucket-1/prod/results/" }), { kind: "s3", bucket: "my.bucket-1", prefix: "prod/results/" });
  assert.deepEqual(parseStorageUrl({ DATA_DIR: "x", STORAGE_URL: "s3://b12/a%20b//c" }), { kind: "s3", bucket: "b12", prefix: "a b/c/" });
  assert.deepEqual(parseStorageUrl({ DATA_DIR: "x", STORAGE_URL: "s3://b12/a/../b/%2E%2E/c" }), { kind: "s3", bucket: "b12", prefix: "c/" });
});

for (const bad of ["s3://My_Bucket/x", "s3://ab", "s3://bucket:9000/x", "s3://key:secret@bucket/x", "s3://bucket/x?region=eu", "file://host/dir", "s3:/bucket"]) {
  test(`STORAGE_URL=${bad} stops start-up naming the variable`, () => {
    assert.throws(() => parseStorageUrl({ DATA_DIR: "x", STORAGE_URL: bad }), (e: unknown) => e instanceof EnvError && e.message.includes("STORAGE_URL"));
  });
}
