import assert from "node:assert/strict";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { runFfmpeg } from "./ffmpeg.ts";
import { PRORES_4444_ARGS } from "./prores-tile-encoder.ts";
import { assembleProresFrame, parseProresFrame, tileColumns } from "./prores-frames.ts";

const dir = await mkdtemp(join(tmpdir(), "prores-frames-"));
test.after(() => rm(dir, { recursive: true, force: true }));

// 360 wide: 23 macroblocks, slices of 8, 8, 4, 2 and 1 in a row; 630 high: a last row of slices 6 pixels high.
const [WIDTH, HEIGHT] = [360, 630];

/** One ProRes frame of a transparent WIDTH × HEIGHT canvas with an opaque test picture at `rows`. */
async function encode(name: string, rows: { top: number; height: number } | null): Promise<Buffer> {
  const picture = rows === null ? "[0:v]null" : `[1:v]scale=${WIDTH}:${rows.height}[p];[0:v][p]overlay=y=${rows.top}:format=auto`;
  const path = join(dir, `${name}.prores`);
  await runFfmpeg({
    args: [
      "-hide_banner", "-loglevel", "error", "-y",
      "-f", "lavfi", "-i", `color=c=black@0:s=${WIDTH}x${HEIGHT}:r=1,format=yuva420p`,
      "-f", "lavfi", "-i", "testsrc2=s=320x240:r=1",
      "-filter_complex", `${picture},format=yuva420p[v]`, "-map", "[v]",
      "-frames:v", "1", ...PRORES_4444_ARGS, "-f", "rawvideo", path,
    ],
  });
  return readFile(path);
}

test("tile columns: slices of 8 macroblocks, the row's last narrower ones in one last column", () => {
  const shape = (width: number) => tileColumns(width).map((c) => [c.x, c.width, c.firstSlice, c.slices]);
  assert.deepEqual(shape(1080).at(-1), [1024, 56, 8, 1]);
  assert.equal(shape(1080).length, 9);
  assert.deepEqual(shape(WIDTH), [[0, 128, 0, 1], [128, 128, 1, 1], [256, 104, 2, 3]]);
  assert.deepEqual(shape(1920).at(-1), [1792, 128, 14, 1]);
  assert.deepEqual(shape(1912).at(-1), [1792, 120, 14, 1]);
  assert.deepEqual(shape(40), [[0, 40, 0, 2]]);
});

test("a frame's slices: rows of the frame's width, and put together again the very frame", async () => {
  const bytes = await encode("parts", { top: 100, height: 60 });
  const frame = parseProresFrame(bytes);
  assert.deepEqual([frame.width, frame.height, frame.slicesPerRow, frame.slices.length], [WIDTH, HEIGHT, 5, 5 * Math.ceil(HEIGHT / 16)]);
  assert.equal(tileColumns(WIDTH).reduce((sum, column) => sum + column.slices, 0), frame.slicesPerRow);
  assert.ok(assembleProresFrame(frame, frame.slices).equals(bytes));
  // Slices of another frame of the same size and settings make that frame.
  const empty = parseProresFrame(await encode("empty", null));
  assert.ok(assembleProresFrame(frame, empty.slices).equals(await readFile(join(dir, "empty.prores"))));
});

test("what does not fit is refused: another count of slices, something not ProRes", async () => {
  const empty = parseProresFrame(await encode("empty-refusals", null));
  assert.throws(() => assembleProresFrame(empty, empty.slices.slice(1)), /slices for a frame of/);
  assert.throws(() => parseProresFrame(Buffer.from("not a prores frame at all, really not")), /not a ProRes frame/);
  assert.throws(() => parseProresFrame(Buffer.from(empty.header)), /not a ProRes frame/);
});
