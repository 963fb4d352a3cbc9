import assert from "node:assert/strict";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { runFfmpeg } from "./ffmpeg.ts";
import { readIvf, type IvfFile } from "./ivf.ts";
import { pairAlpha, SHOW_LAST_VP9_FRAME } from "./vp9-alpha-webm.ts";

const dir = await mkdtemp(join(tmpdir(), "vp9-alpha-webm-"));
test.after(() => rm(dir, { recursive: true, force: true }));

const VP9 = ["-enc_time_base", "1:1000", "-fps_mode", "passthrough", "-c:v", "libvpx-vp9", "-pix_fmt", "yuv420p", "-lossless", "1", "-deadline", "realtime", "-cpu-used", "8"];

// Frames whose first byte is their time (a multiple of 4: VP9's marker bits and a key frame's) or, with `inter`, an
// inter frame's header byte.
const ivf = (pts: number[], inter: number[] = []): IvfFile => ({
  fourcc: "VP90", width: 2, height: 2, timeBase: { num: 1, den: 1000 },
  frames: pts.map((p) => ({ pts: p, data: Buffer.from([inter.includes(p) ? 0x84 : 0x80, p]) })),
});

test("each colour frame gets the alpha frame of its time, else the last one shown again", () => {
  const paired = pairAlpha(ivf([0, 10, 20, 30, 40], [10, 20, 40]), ivf([0, 20, 30], [20]));
  assert.deepEqual(paired.map((frame) => [frame.pts, frame.alpha.at(-1)]), [[0, 0], [10, 0x88], [20, 20], [30, 30], [40, 0x88]]);
  assert.equal(paired[1]!.alpha, SHOW_LAST_VP9_FRAME);
});

test("streams that cannot pair are refused: an alpha frame missing or left over, key frames at different times", () => {
  assert.throws(() => pairAlpha(ivf([0, 10]), ivf([10])), /no alpha frame for the colour frame at 0/);
  assert.throws(() => pairAlpha(ivf([0, 10], [10]), ivf([0, 5])), /no alpha frame for the colour frame at 10/);
  assert.throws(() => pairAlpha(ivf([0, 10]), ivf([0])), /no alpha frame for the colour frame at 10/);
  assert.throws(() => pairAlpha(ivf([0, 10], [10]), ivf([0, 10, 20], [10])), /alpha frame at 20 has no colour frame/);
  assert.throws(() => pairAlpha(ivf([0, 10], [10]), ivf([0, 10])), /at 10 the colour frame is not a key frame and the alpha frame is/);
  assert.throws(() => pairAlpha(ivf([0, 10]), ivf([0, 10], [10])), /at 10 the colour frame is a key frame and the alpha frame not/);
  assert.throws(() => pairAlpha(ivf([0]), { ...ivf([0]), timeBase: { num: 1, den: 30 } }), /time base/);
  assert.throws(() => pairAlpha(ivf([0]), { ...ivf([0]), fourcc: "VP80" }), /VP9/);
});

test("an IVF file is read frame by frame, and a truncated one is refused", async () => {
  const path = join(dir, "small.ivf");
  await runFfmpeg({ args: ["-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "color=s=32x32:r=5:d=1", ...VP9, "-f", "ivf", path] });
  const bytes = await readFile(path);
  const file = readIvf(bytes);
  assert.deepEqual([file.fourcc, file.width, file.height, file.timeBase, file.frames.map((f) => f.pts)], ["VP90", 32, 32, { num: 1, den: 1000 }, [0, 200, 400, 600, 800]]);
  assert.throws(() => readIvf(bytes.subarray(0, bytes.length - 1)), /runs past the end/);
  assert.throws(() => readIvf(Buffer.from("RIFF0000000000000000000000000000")), /not an IVF file/);
});
