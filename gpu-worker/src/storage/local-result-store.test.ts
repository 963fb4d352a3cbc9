import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, readdir, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createHash, randomBytes } from "node:crypto";
import { test } from "node:test";
import { createLocalResultStore } from "./local-result-store.ts";
import { StoredFileMissing, type ResultStore } from "./result-store.ts";

/** Runs `body` with a store over a fresh temporary root, removed afterwards. */
async function withStore(body: (store: ResultStore, root: string) => Promise<void>): Promise<void> {
  const root = await mkdtemp(path.join(tmpdir(), "store-"));
  try {
    await body(createLocalResultStore(root), root);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

test("put stores under <job>/<name>, overwrites on retry, deleteJob removes everything", async () => {
  await withStore(async (store, root) => {
    const source = path.join(root, "source.txt");
    await writeFile(source, "first");
    assert.equal(await store.put("job_1", "captions.srt", source, "text/plain"), "job_1/captions.srt");
    await writeFile(source, "second");
    await store.put("job_1", "captions.srt", source, "text/plain");
    assert.equal(await readFile(path.join(root, "job_1", "captions.srt"), "utf8"), "second");
    assert.deepEqual(await readdir(path.join(root, "job_1")), ["captions.srt"], "no temp files left");
    await store.deleteJob("job_1");
    assert.equal(existsSync(path.join(root, "job_1")), false);
    await store.deleteJob("job_1");
    await assert.rejects(store.put("../etc", "x", source, "text/plain"), /unsafe/);
    await assert.rejects(store.put("job_2", "../x", source, "text/plain"), /unsafe/);
  });
});

test("get copies a stored file back with its size and sha256; a missing one is StoredFileMissing", async () => {
  await withStore(async (store, root) => {
    const bytes = randomBytes(300_000);
    const source = path.join(root, "upload");
    await writeFile(source, bytes);
    await store.put("job_1", "source-video", source, "application/octet-stream");
    const copy = path.join(root, "copy");
    const fingerprint = await store.get("job_1", "source-video", copy);
    assert.deepEqual(fingerprint, { bytes: bytes.length, sha256: createHash("sha256").update(bytes).digest("hex") });
    assert.ok((await readFile(copy)).equals(bytes));
    await assert.rejects(store.get("job_1", "transcript.json", copy), StoredFileMissing);
    await assert.rejects(store.get("job_gone", "source-video", copy), StoredFileMissing);
    await assert.rejects(store.get("job_1", "../upload", copy), /unsafe/);
    await assert.rejects(store.get("job_1", "source-video", path.join(root, "aborted"), { signal: AbortSignal.abort() }), { name: "AbortError" });
  });
});

test("copy makes the stored file the other job's too without a second copy on disk; either job's deletion leaves the other's", async () => {
  await withStore(async (store, root) => {
    const file = path.join(root, "upload");
    await writeFile(file, "the source video");
    await store.put("job_source", "source-video", file, "video/mp4");
    assert.equal(await store.copy("job_source", "source-video", "job_render"), "job_render/source-video");
    const [from, to] = await Promise.all([stat(path.join(root, "job_source", "source-video")), stat(path.join(root, "job_render", "source-video"))]);
    assert.equal(to.ino, from.ino, "one file, two names (a hard link)");
    assert.equal(to.nlink, 2);
    await store.deleteJob("job_source");
    assert.equal(await readFile(path.join(root, "job_render", "source-video"), "utf8"), "the source video");
    assert.equal((await stat(path.join(root, "job_render", "source-video"))).nlink, 1);
    await assert.rejects(store.copy("job_source", "source-video", "job_other"), StoredFileMissing);
  });
});
