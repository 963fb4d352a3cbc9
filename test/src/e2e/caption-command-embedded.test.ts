// `npm run caption -- ./talk.mp4` with no CAPTION_API_URL: the embedded service started for the command (the same
// entry point as `npm start`), the file uploaded over tus, five files beside it, the service and its database
// stopped after; then joining an `npm start` already running on the same DATA_DIR, and a text file failing there.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { chmod, copyFile, mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { startEmbeddedService } from "@caption/control-plane/testing";
import { probeMedia } from "@caption/gpu-worker/media";
import { makeNonVideoFile, makeSpeechVideo } from "@caption/gpu-worker/testing";
import { runCaptionCommand } from "../support/caption-command.ts";

let work: string;
let dataDir: string;
let billed: number;

before(async () => {
  work = await mkdtemp(path.join(tmpdir(), "caption-embedded-"));
  // Run as root, the embedded PostgreSQL initialises its cluster in DATA_DIR as its own user.
  await chmod(work, 0o755);
  dataDir = path.join(work, "data");
  const clip = await makeSpeechVideo({ text: "Hello and welcome. Captions make every video easier to follow.", width: 640, height: 360, fps: 25, padSeconds: 0.5 });
  billed = Math.ceil(clip.durationSeconds);
  await copyFile(clip.path, path.join(work, "talk.mp4"));
  await copyFile(await makeNonVideoFile(), path.join(work, "notes.txt"));
});
after(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

const local = () => ({ DATA_DIR: dataDir, CAPTION_API_URL: "", CAPTION_API_KEY: "" });

test("no CAPTION_API_URL: the embedded service runs for the command, the upload goes over tus, five files beside the input", { timeout: 300_000 }, async () => {
  const run = runCaptionCommand(["./talk.mp4"], { cwd: work, env: local() });
  assert.equal(await run.exited, 0, `${run.stderr()}\n${run.stdout()}`);
  assert.match(run.stderr(), /^starting the embedded caption service \(DATA_DIR .*\/data\)…\nservice ready at http:\/\/127\.0\.0\.1:\d+ \(\d+\.\d s\)$/m);
  assert.match(run.stderr(), /^upload: 1\.\d MiB done in \d+\.\d s$/m);
  const probed = await probeMedia(path.join(work, "talk.captioned.mp4"));
  assert.deepEqual([probed.width, probed.height, probed.hasAudio], [640, 360, true]);
  for (const name of ["talk.srt", "talk.vtt", "talk.ass", "talk.transcript.json"]) assert.ok((await stat(path.join(work, name))).size > 0, name);
  const transcript = JSON.parse(await readFile(path.join(work, "talk.transcript.json"), "utf8")) as { words: { text: string }[] };
  assert.ok(transcript.words.length >= 5, JSON.stringify(transcript.words));
  assert.match(run.stdout(), new RegExp(`^billed ${billed} s; balance left ${36_000 - billed} s$`, "m"));
  // The service stopped with the command, its database too; the local key is kept for the next command, private.
  assert.equal(existsSync(path.join(dataDir, "service.json")), false, "a service run for one command is not advertised");
  const credentials = JSON.parse(await readFile(path.join(dataDir, "postgres.json"), "utf8")) as { clusterDir?: string };
  assert.equal(existsSync(path.join(credentials.clusterDir ?? path.join(dataDir, "postgres"), "postmaster.pid")), false);
  assert.equal((await stat(path.join(dataDir, "caption-command.json"))).mode & 0o777, 0o600);
});

test("an `npm start` on the same DATA_DIR is joined, not fought over; a text file fails UNSUPPORTED_FORMAT, uncharged", { timeout: 300_000 }, async () => {
  const service = await startEmbeddedService({ entry: "embedded", dataDir });
  try {
    const failed = runCaptionCommand(["notes.txt", "--json"], { cwd: work, env: local() });
    assert.equal(await failed.exited, 1, failed.stderr());
    const error = JSON.parse(failed.stdout()) as { error: { code: string; message: string } };
    assert.equal(error.error.code, "UNSUPPORTED_FORMAT", failed.stdout());
    assert.ok(error.error.message.length > 0);

    const joined = runCaptionCommand(["./talk.mp4", "--json", "--out", "again"], { cwd: work, env: local() });
    assert.equal(await joined.exited, 0, joined.stderr());
    const outcome = JSON.parse(joined.stdout()) as { service: string; billed_seconds: number; balance_seconds: number };
    assert.equal(outcome.service, "joined");
    // The same local account as the first test: one job charged before, none for the text file.
    assert.deepEqual([outcome.billed_seconds, outcome.balance_seconds], [billed, 36_000 - 2 * billed]);
    assert.ok(existsSync(path.join(work, "again", "talk.captioned.mp4")));
    assert.ok(service.running(), "the joined service keeps running after the command");
  } finally {
    await service.stop();
  }
  const log = await readFile(path.join(dataDir, "service.log"), "utf8");
  assert.equal(log.match(/"path":"\/v1\/uploads","status":201/g)?.length, 3, "one upload per command, all three to services on this DATA_DIR");
});
