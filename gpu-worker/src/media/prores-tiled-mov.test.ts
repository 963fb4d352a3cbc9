import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { access, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { runFfmpeg, runFfprobe } from "./ffmpeg.ts";
import { tileColumns } from "./prores-frames.ts";
import { PRORES_4444_ARGS, ProresTileEncoder } from "./prores-tile-encoder.ts";
import { writeTiledMov, type MovFrameChange } from "./prores-tiled-mov.ts";

const dir = await mkdtemp(join(tmpdir(), "prores-tiled-mov-"));
test.after(() => rm(dir, { recursive: true, force: true }));

const [WIDTH, HEIGHT, FPS] = [128, 48, 10];
const RATE = { frames: 20, frameRate: { num: FPS, den: 1 } };
const COLUMNS = tileColumns(WIDTH);
const PLANE = WIDTH * HEIGHT;

const template = join(dir, "empty.mov");
await runFfmpeg({
  args: ["-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i", `color=c=black@0:s=${WIDTH}x${HEIGHT}:r=${FPS},format=yuva444p`, "-frames:v", "1", ...PRORES_4444_ARGS, "-f", "mov", template],
});

/** A tile's yuva444p picture of noise (every slice coded densely). */
const tile = (seed: number) => Buffer.from(Array.from({ length: 4 * 16 * WIDTH }, (_, i) => (i * 131 + seed * 17 + ((i * seed) >> 3)) % 256));

/** The whole picture with `tiles` (slice row → tile) in place, transparent elsewhere. */
function whole(tiles: Map<number, Buffer>): Buffer {
  const picture = Buffer.concat([Buffer.alloc(PLANE, 16), Buffer.alloc(2 * PLANE, 128), Buffer.alloc(PLANE, 0)]);
  for (const [row, bytes] of tiles) {
    for (let p = 0; p < 4; p++) bytes.copy(picture, p * PLANE + row * 16 * WIDTH, p * 16 * WIDTH, (p + 1) * 16 * WIDTH);
  }
  return picture;
}

const md5 = (bytes: Buffer) => createHash("md5").update(bytes).digest("hex");

async function encodeWhole(name: string, picture: Buffer): Promise<string> {
  const [input, output] = [join(dir, `${name}.raw`), join(dir, `${name}.prores`)];
  await writeFile(input, picture);
  await runFfmpeg({ args: ["-hide_banner", "-loglevel", "error", "-y", "-f", "rawvideo", "-pix_fmt", "yuva444p", "-s", `${WIDTH}x${HEIGHT}`, "-i", input, ...PRORES_4444_ARGS, "-f", "rawvideo", output] });
  return md5(await readFile(output));
}

/** Tiles coded as the render codes them: rows 1 and 2 change at frame 5, row 2 again at frame 12. */
async function codedTiles(name: string): Promise<{ changes: MovFrameChange[]; tileFiles: Map<number, string> }> {
  const encoder = new ProresTileEncoder(join(dir, `${name}.tiles`), WIDTH, {});
  for (const seed of [1, 2, 3]) await encoder.encode(tile(seed));
  await encoder.finish();
  const changes = [
    { frame: 0, tiles: [] },
    { frame: 5, tiles: [{ row: 1, column: 0 }, { row: 2, column: 0 }] },
    { frame: 9, tiles: [] },
    { frame: 12, tiles: [{ row: 2, column: 0 }] },
  ];
  return { changes, tileFiles: new Map([[WIDTH, encoder.path]]) };
}

test("one sample per frame of the video, each the whole picture's ProRes bytes as of the last change", async () => {
  const target = join(dir, "held.mov");
  await writeTiledMov({ templatePath: template, columns: COLUMNS, ...(await codedTiles("held")) }, target, RATE);
  const probe = await runFfprobe({ args: ["-v", "error", "-count_packets", "-show_entries", "stream=codec_name,profile,width,height,avg_frame_rate,nb_read_packets:format=duration", "-of", "csv=p=0", target] });
  assert.deepEqual(probe.trim().split("\n"), [`prores,4444,${WIDTH},${HEIGHT},${FPS}/1,20`, "2.000000"]);
  const hashesOut = join(dir, "held.framemd5");
  await runFfmpeg({ args: ["-hide_banner", "-loglevel", "error", "-y", "-i", target, "-c", "copy", "-f", "framemd5", hashesOut] });
  const hashes = (await readFile(hashesOut, "utf8")).split("\n").filter((l) => l !== "" && !l.startsWith("#")).map((l) => l.split(",").at(-1)!.trim());
  const pictures = [
    await encodeWhole("at-0", whole(new Map())),
    await encodeWhole("at-5", whole(new Map([[1, tile(1)], [2, tile(2)]]))),
    await encodeWhole("at-12", whole(new Map([[1, tile(1)], [2, tile(3)]]))),
  ];
  const expected = Array.from({ length: 20 }, (_, frame) => pictures[frame < 5 ? 0 : frame < 12 ? 1 : 2]);
  assert.deepEqual(hashes, expected);
});

test("a movie that cannot be finished is removed: an abort, a tile nobody coded", async () => {
  const controller = new AbortController();
  controller.abort(new Error("job cancelled"));
  const aborted = join(dir, "aborted.mov");
  await assert.rejects(writeTiledMov({ templatePath: template, columns: COLUMNS, ...(await codedTiles("aborted")) }, aborted, RATE, controller.signal), /job cancelled/);
  await assert.rejects(access(aborted));
  const missing = join(dir, "missing.mov");
  const { changes, tileFiles } = await codedTiles("missing");
  changes.push({ frame: 15, tiles: [{ row: 0, column: 0 }] });
  await assert.rejects(writeTiledMov({ templatePath: template, columns: COLUMNS, changes, tileFiles }, missing, RATE), /no coded tile for row 0/);
  await assert.rejects(access(missing));
});
