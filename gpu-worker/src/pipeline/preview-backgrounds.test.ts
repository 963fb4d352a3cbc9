import assert from "node:assert/strict";
import { copyFile, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import pino from "pino";
import { UPLOADS_FOLDER } from "@caption/shared/storage/result-files";
import { createTestDatabase, type TestDatabase } from "@caption/shared/testing/test-database";
import { createLocalResultStore } from "../storage/local-result-store.ts";
import { makeSpeechVideo } from "../testing/speech-video.ts";
import { PreviewBackgrounds, PreviewRefused } from "./preview-backgrounds.ts";

// A finished upload as a preview's background: the worker copies it from storage, probes it by a job's rules and
// decodes its frames; another account's, an unfinished or a deleted one, or a file no job would take, is refused
// with the code and words the API uses.

const ACCOUNT = "acct_backgrounds";
const ids = { video: "upl_01JB0000000000000000000001", text: "upl_01JB0000000000000000000002", unfinished: "upl_01JB0000000000000000000003", deleted: "upl_01JB0000000000000000000004" };
let database: TestDatabase;
let dir: string;
let backgrounds: PreviewBackgrounds;

before(async () => {
  [database, dir] = await Promise.all([createTestDatabase(), mkdtemp(path.join(tmpdir(), "preview-backgrounds-"))]);
  const video = await makeSpeechVideo({ text: "A frame of my own", width: 320, height: 240, fps: 25 });
  const stored = path.join(dir, "store", UPLOADS_FOLDER);
  await mkdir(stored, { recursive: true });
  await copyFile(video.path, path.join(stored, ids.video));
  await writeFile(path.join(stored, ids.text), "not a video at all\n".repeat(50));
  await database.db.insertInto("accounts").values({ id: ACCOUNT, name: "a" }).execute();
  await database.db.insertInto("api_keys").values({ id: "key_backgrounds", account_id: ACCOUNT, name: "k", prefix: "kb", secret_hash: "0".repeat(64), scopes: ["subtitles:write"] }).execute();
  const expiresAt = new Date(Date.now() + 3600_000);
  for (const [name, id] of Object.entries(ids)) {
    await database.db.insertInto("uploads").values({
      id, account_id: ACCOUNT, api_key_id: "key_backgrounds", size_bytes: 10, filename: null, created_at: new Date(), expires_at: expiresAt,
      completed_at: name === "unfinished" ? null : new Date(), deleted_at: name === "deleted" ? new Date() : null,
    }).execute();
  }
  const store = createLocalResultStore(path.join(dir, "store"));
  backgrounds = new PreviewBackgrounds({ db: database.db, store, dir: path.join(dir, "scratch"), ffmpegPath: "ffmpeg", ffprobePath: "ffprobe", logger: pino({ level: "silent" }) });
});
after(async () => {
  await database?.dispose();
  await rm(dir, { recursive: true, force: true });
});

test("an upload's video: its size, length and rate as probed, and its frames decoded", async () => {
  const video = await backgrounds.video(ACCOUNT, { upload_id: ids.video, at: 1 });
  assert.equal(video.kind, "upload");
  assert.deepEqual([video.media.width, video.media.height, video.media.frameRate], [320, 240, 25]);
  const frame = await backgrounds.frame(video, 25);
  assert.ok(frame instanceof Object);
});

test("a frame one request stops waiting for is still decoded for another that asked for it too", async () => {
  const video = await backgrounds.video(ACCOUNT, { upload_id: ids.video, at: 1 });
  const impatient = new AbortController();
  const first = backgrounds.frame(video, 40, impatient.signal);
  const second = backgrounds.frame(video, 40);
  impatient.abort(new Error("deadline"));
  await assert.rejects(first, /deadline/);
  const frame = await second;
  assert.equal(frame, await backgrounds.frame(video, 40));
});

const refusal = async (upload: string, accountId: string, code: string, message: RegExp) => {
  await assert.rejects(backgrounds.video(accountId, { upload_id: upload, at: 1 }), (error: unknown) => {
    assert.ok(error instanceof PreviewRefused, String(error));
    assert.equal(error.code, code);
    assert.match(error.message, message);
    return true;
  });
};

test("another account's upload, an unfinished or deleted one, and a file that is no video are refused", async () => {
  await refusal(ids.video, "acct_other", "NOT_FOUND", /^background\.upload_id: upload not found$/);
  await refusal(ids.unfinished, ACCOUNT, "UPLOAD_INCOMPLETE", /has not received all of its 10 bytes/);
  await refusal(ids.deleted, ACCOUNT, "UPLOAD_EXPIRED", /has expired/);
  await refusal(ids.text, ACCOUNT, "SOURCE_NOT_RENDERABLE", /^background\.upload_id: upload upl_\w+ cannot be a preview's background: /);
});
