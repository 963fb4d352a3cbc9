import assert from "node:assert/strict";
import { access, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { runFfmpeg, runFfprobe } from "./ffmpeg.ts";
import { writeStripMovAsFrames } from "./prores-strip-mov.ts";

const dir = await mkdtemp(join(tmpdir(), "prores-strip-mov-"));
test.after(() => rm(dir, { recursive: true, force: true }));

const PRORES = ["-c:v", "prores_ks", "-profile:v", "4444", "-qscale:v", "4", "-pix_fmt", "yuva444p10le", "-vendor", "apl0"];
const [WIDTH, HEIGHT, FPS] = [128, 96, 10];
const RATE = { frames: 20, frameRate: { num: FPS, den: 1 } };

/** A strip movie of 128 × 32 whose picture changes at frames 0, 5 and 12, as the overlay's encoder writes it (held frames not repeated). */
async function stripMovie(name: string): Promise<string> {
  const path = join(dir, `${name}.strip.mov`);
  await runFfmpeg({
    args: [
      "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i", `testsrc2=s=${WIDTH}x32:r=${FPS}:d=2,format=yuva420p`,
      "-vf", "select='eq(n\\,0)+eq(n\\,5)+eq(n\\,12)'", "-fps_mode", "passthrough", "-r", String(FPS), ...PRORES, "-f", "mov", path,
    ],
  });
  return path;
}

async function emptyFrame(): Promise<Buffer> {
  const path = join(dir, "empty.prores");
  await runFfmpeg({ args: ["-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i", `color=c=black@0:s=${WIDTH}x${HEIGHT}:r=1,format=yuva420p`, "-frames:v", "1", ...PRORES, "-f", "rawvideo", path] });
  return readFile(path);
}

test("the strip's frames become whole frames, one sample per frame of the video, held between changes", async () => {
  const strip = await stripMovie("held");
  const target = join(dir, "held.mov");
  await writeStripMovAsFrames(strip, target, { base: await emptyFrame(), firstRow: 2 }, RATE);
  const probe = await runFfprobe({ args: ["-v", "error", "-count_packets", "-show_entries", "stream=width,height,avg_frame_rate,nb_read_packets:format=duration", "-of", "csv=p=0", target] });
  assert.deepEqual(probe.trim().split("\n"), [`${WIDTH},${HEIGHT},${FPS}/1,20`, "2.000000"]);
  const hashes = join(dir, "held.framemd5");
  await runFfmpeg({ args: ["-hide_banner", "-loglevel", "error", "-y", "-i", target, "-c", "copy", "-f", "framemd5", hashes] });
  const packets = (await readFile(hashes, "utf8")).split("\n").filter((line) => line !== "" && !line.startsWith("#")).map((line) => line.split(",").at(-1)!.trim());
  const changes = packets.flatMap((hash, i) => (hash !== packets[i - 1] ? [i] : []));
  assert.deepEqual(changes, [0, 5, 12]);
  await assert.rejects(access(strip), /ENOENT/, "the strip movie is removed");
});

test("an abort between frames, or a strip running past the frame's last row, leaves no movie behind", async () => {
  const aborted = join(dir, "aborted.mov");
  const controller = new AbortController();
  controller.abort(new Error("job cancelled"));
  await assert.rejects(writeStripMovAsFrames(await stripMovie("aborted"), aborted, { base: await emptyFrame(), firstRow: 2 }, RATE, controller.signal), /job cancelled/);
  await assert.rejects(access(aborted), /ENOENT/);
  const misfit = join(dir, "misfit.mov");
  await assert.rejects(writeStripMovAsFrames(await stripMovie("misfit"), misfit, { base: await emptyFrame(), firstRow: 5 }, RATE), /outside the frame/);
  await assert.rejects(access(misfit), /ENOENT/);
});
