import assert from "node:assert/strict";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { runFfmpeg } from "./ffmpeg.ts";
import { parseProresFrame, sliceRowsFor, spliceProresRows } from "./prores-frames.ts";

const dir = await mkdtemp(join(tmpdir(), "prores-frames-"));
test.after(() => rm(dir, { recursive: true, force: true }));

// What the overlay's MOV is encoded with (render/overlay-output.ts), here from media/ alone.
const PRORES = ["-c:v", "prores_ks", "-profile:v", "4444", "-qscale:v", "4", "-pix_fmt", "yuva444p10le", "-vendor", "apl0"];
// 360 wide: 23 macroblocks, slices of 8, 8, 4, 2 and 1 in a row; 630 high: a last row of slices 6 pixels high.
const [WIDTH, HEIGHT] = [360, 630];

/** One ProRes frame of a transparent WIDTH × HEIGHT canvas with an opaque test picture at `rows` (a filter graph's output [v]), cropped to `crop`. */
async function encode(name: string, rows: { top: number; height: number } | null, crop?: { y: number; height: number }): Promise<Buffer> {
  const picture = rows === null ? "[0:v]null" : `[1:v]scale=${WIDTH}:${rows.height}[p];[0:v][p]overlay=y=${rows.top}:format=auto`;
  const cut = crop ? `,crop=${WIDTH}:${crop.height}:0:${crop.y}` : "";
  const path = join(dir, `${name}.prores`);
  await runFfmpeg({
    args: [
      "-hide_banner", "-loglevel", "error", "-y",
      "-f", "lavfi", "-i", `color=c=black@0:s=${WIDTH}x${HEIGHT}:r=1,format=yuva420p`,
      "-f", "lavfi", "-i", "testsrc2=s=320x240:r=1",
      "-filter_complex", `${picture},format=yuva420p${cut}[v]`, "-map", "[v]",
      "-frames:v", "1", ...PRORES, "-f", "rawvideo", path,
    ],
  });
  return readFile(path);
}

for (const rows of [{ top: 256, height: 64 }, { top: 250, height: 90 }, { top: 600, height: 30 }, { top: 0, height: 40 }]) {
  test(`a strip of the rows ${rows.top}–${rows.top + rows.height} encoded alone and spliced into an empty frame is the frame encoded whole, byte for byte`, async () => {
    const whole = await encode(`whole-${rows.top}`, rows);
    const strip = sliceRowsFor(rows.top, rows.height, HEIGHT);
    assert.equal(strip.y % 16, 0);
    assert.ok(strip.y <= rows.top && strip.y + strip.height >= rows.top + rows.height && strip.y + strip.height <= HEIGHT);
    const spliced = spliceProresRows(parseProresFrame(await encode("empty", null)), parseProresFrame(await encode(`strip-${rows.top}`, rows, strip)), strip.firstRow);
    assert.equal(spliced.length, whole.length);
    assert.ok(spliced.equals(whole), "the spliced frame's bytes differ from the whole frame's");
  });
}

test("a frame's slices: rows of the frame's width, and its size and picture as ffmpeg decodes them", async () => {
  const frame = parseProresFrame(await encode("parts", { top: 100, height: 60 }));
  assert.deepEqual([frame.width, frame.height, frame.slicesPerRow, frame.slices.length], [WIDTH, HEIGHT, 5, 5 * Math.ceil(HEIGHT / 16)]);
  // The spliced frame of the empty canvas with itself decodes (ffmpeg checks the slice table against the data).
  const empty = parseProresFrame(await encode("empty-again", null));
  const again = spliceProresRows(empty, parseProresFrame(await encode("empty-strip", null, { y: 32, height: 64 })), 2);
  assert.ok(again.equals(await readFile(join(dir, "empty-again.prores"))));
});

test("strips that do not fit are refused: another width, rows past the frame, something not ProRes", async () => {
  const empty = parseProresFrame(await encode("empty-refusals", null));
  const strip = parseProresFrame(await encode("strip-refusals", null, { y: 0, height: 32 }));
  assert.throws(() => spliceProresRows(empty, strip, Math.ceil(HEIGHT / 16) - 1), /outside the frame/);
  assert.throws(() => spliceProresRows(empty, { ...strip, width: WIDTH - 16 }, 0), /cannot go into/);
  assert.throws(() => parseProresFrame(Buffer.from("not a prores frame at all, really not")), /not a ProRes frame/);
  const truncated = Buffer.from(strip.header);
  assert.throws(() => parseProresFrame(truncated), /not a ProRes frame/);
});

test("the strip's rows: whole slice rows with the chroma filter's reach about the band, inside the frame", () => {
  assert.deepEqual(sliceRowsFor(1300, 254, 1920), { firstRow: 80, y: 1280, height: 288 });
  assert.deepEqual(sliceRowsFor(4, 20, 1920), { firstRow: 0, y: 0, height: 32 });
  assert.deepEqual(sliceRowsFor(1900, 20, 1920), { firstRow: 118, y: 1888, height: 32 });
  assert.deepEqual(sliceRowsFor(600, 30, 630), { firstRow: 37, y: 592, height: 38 });
});
