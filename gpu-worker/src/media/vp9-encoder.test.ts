import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { runFfmpeg, runFfprobe } from "./ffmpeg.ts";
import { ivfFrameHeader, ivfHeader, readIvf } from "./ivf.ts";
import { openVp9Encoder, type Vp9Encoder, type Vp9EncoderOptions, type Vp9Packet } from "./vp9-encoder.ts";
import { writeAlphaWebm } from "./vp9-alpha-webm.ts";

const dir = await mkdtemp(join(tmpdir(), "vp9-encoder-"));
test.after(() => rm(dir, { recursive: true, force: true }));

const [W, H] = [320, 240];
const FRAME = (W * H * 3) / 2;
const COLS = (W + 15) >> 4;

function open(options: Partial<Vp9EncoderOptions> & { lossless: boolean }): Vp9Encoder {
  const opened = openVp9Encoder({ width: W, height: H, ...options });
  assert.ok(opened.encoder, opened.reason);
  return opened.encoder;
}

/**
 * A caption-like picture: black (Y 16, U = V 128), a band of letter-like strokes with soft edges, one word
 * coloured, the strokes of word `t % 4` lifted by two rows (what an animation changes between frames).
 */
function captionFrame(t: number): Uint8Array {
  const frame = new Uint8Array(FRAME).fill(16, 0, W * H).fill(128, W * H);
  for (let word = 0; word < 4; word++) {
    const lift = word === t % 4 ? 2 : 0;
    for (let stroke = 0; stroke < 5; stroke++) {
      const x0 = 12 + word * 76 + stroke * 13;
      for (let y = 150 - lift; y < 180 - lift; y++) {
        for (let x = x0; x < x0 + 8; x++) {
          const edge = Math.min(x - x0, x0 + 7 - x, y - 150 + lift, 179 - lift - y);
          frame[y * W + x] = edge === 0 ? 120 : 235;
          if (word === 1) {
            frame[W * H + (y >> 1) * (W / 2) + (x >> 1)] = 90;
            frame[W * H + (W / 2) * (H / 2) + (y >> 1) * (W / 2) + (x >> 1)] = 170;
          }
        }
      }
    }
  }
  return frame;
}

/** The blocks where two frames differ, pixel by pixel: the reference the encoder's map must cover. */
function changedBlocks(before: Uint8Array, after: Uint8Array): Uint8Array {
  const map = new Uint8Array(((H + 15) >> 4) * COLS);
  for (let i = 0; i < W * H; i++) if (before[i] !== after[i]) map[((i / W / 16) | 0) * COLS + (((i % W) / 16) | 0)] = 1;
  for (let c = 0; c < 2; c++) {
    for (let i = 0; i < (W / 2) * (H / 2); i++) {
      const at = W * H + c * (W / 2) * (H / 2) + i;
      if (before[at] !== after[at]) map[((i / (W / 2) / 8) | 0) * COLS + (((i % (W / 2)) / 8) | 0)] = 1;
    }
  }
  return map;
}

async function writeIvf(path: string, packets: Vp9Packet[], width = W, height = H): Promise<void> {
  const header = ivfHeader({ fourcc: "VP90", width, height, timeBase: { num: 1, den: 1000 } }, packets.length);
  await writeFile(path, Buffer.concat([header, ...packets.flatMap((packet) => [ivfFrameHeader(packet), packet.data])]));
}

/** The IVF's frames decoded by libvpx through ffmpeg, one I420 frame each. */
async function decode(path: string, width = W, height = H): Promise<Buffer[]> {
  const raw = `${path}.yuv`;
  await runFfmpeg({ args: ["-hide_banner", "-loglevel", "error", "-y", "-c:v", "libvpx-vp9", "-i", path, "-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt", "yuv420p", raw] });
  const bytes = await readFile(raw);
  const size = (width * height * 3) / 2;
  return Array.from({ length: bytes.length / size }, (_, i) => bytes.subarray(i * size, (i + 1) * size));
}

/** Encodes `frames` 40 ms apart, key frames at `keys`, each later frame with the map of what changed (or `maps`). */
async function encodeAll(encoder: Vp9Encoder, frames: Uint8Array[], keys: number[], maps?: (Uint8Array | undefined)[]): Promise<Vp9Packet[]> {
  const packets: Vp9Packet[] = [];
  for (const [i, frame] of frames.entries()) {
    const active = maps ? maps[i] : i > 0 ? changedBlocks(frames[i - 1]!, frame) : undefined;
    packets.push(...(await encoder.encode(frame, i * 40, { key: keys.includes(i), active })));
  }
  return packets;
}

test("lossless frames coded through active maps that cover every change decode to exactly the frames given", async () => {
  const encoder = open({ lossless: true });
  const frames = [0, 1, 2, 3, 3, 5].map(captionFrame);
  const packets = await encodeAll(encoder, frames, [0]);
  encoder.close();
  assert.deepEqual(packets.map((p) => p.pts), [0, 40, 80, 120, 160, 200]);
  const path = join(dir, "lossless.ivf");
  await writeIvf(path, packets);
  const decoded = await decode(path);
  assert.equal(decoded.length, frames.length);
  decoded.forEach((frame, i) => assert.ok(frame.equals(frames[i]!), `frame ${i} decodes to its input`));
  // An unchanged frame, its map empty, costs a handful of bytes: nothing is coded.
  assert.ok(packets[4]!.data.length < 40, `the repeated frame took ${packets[4]!.data.length} bytes`);
});

test("blocks the map leaves out keep the last frame's pixels although the input changed there", async () => {
  const encoder = open({ lossless: true });
  const before = captionFrame(0);
  const after = captionFrame(1);
  // Words 0 and 1 change; the map lets through only the blocks of word 1 (x ≥ 80).
  const changed = changedBlocks(before, after);
  const map = changed.map((on, block) => (on && (block % COLS) * 16 >= 80 ? 1 : 0));
  assert.ok(map.some((on, block) => changed[block] && !on) && map.some((on) => on), "the map leaves out some changed blocks and lets others through");
  const packets = await encodeAll(encoder, [before, after], [0], [undefined, map]);
  encoder.close();
  const path = join(dir, "left-out.ivf");
  await writeIvf(path, packets);
  const [, decoded] = await decode(path);
  const expected = Uint8Array.from(after);
  for (let i = 0; i < W * H; i++) if (!map[((i / W / 16) | 0) * COLS + (((i % W) / 16) | 0)]) expected[i] = before[i]!;
  for (let i = W * H; i < FRAME; i++) {
    const c = (i - W * H) % ((W / 2) * (H / 2));
    if (!map[((c / (W / 2) / 8) | 0) * COLS + (((c % (W / 2)) / 8) | 0)]) expected[i] = before[i]!;
  }
  assert.ok(!expected.every((v, i) => v === after[i]), "some changed pixels are left out");
  assert.ok(decoded!.equals(expected), "the left-out blocks show the first frame, the others the second");
});

const psnr = (a: Uint8Array, b: Uint8Array): number => {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += (a[i]! - b[i]!) ** 2;
  return 10 * Math.log10((255 * 255 * a.length) / Math.max(sum, 1e-9));
};

test("the lossy colour stream (CQ 15) decodes close to its input through active maps", async () => {
  const encoder = open({ lossless: false, cqLevel: 15 });
  const frames = [0, 1, 2, 3].map(captionFrame);
  const packets = await encodeAll(encoder, frames, [0]);
  encoder.close();
  const path = join(dir, "lossy.ivf");
  await writeIvf(path, packets);
  const decoded = await decode(path);
  for (const [i, frame] of decoded.entries()) {
    const db = psnr(frame, frames[i]!);
    assert.ok(db > 40, `frame ${i}: PSNR ${db.toFixed(1)} dB`);
    assert.ok(!frame.equals(frames[i]!), "lossy: not the very input");
  }
});

test("key frames are where they are asked for and nowhere else", async () => {
  const encoder = open({ lossless: false });
  const frames = [0, 1, 2, 3, 0, 1, 2, 3].map(captionFrame);
  const packets = await encodeAll(encoder, frames, [0, 5]);
  encoder.close();
  assert.deepEqual(packets.map((p) => p.key), [true, false, false, false, false, true, false, false]);
  const path = join(dir, "keys.ivf");
  await writeIvf(path, packets);
  const keys = await runFfprobe({ args: ["-v", "error", "-show_entries", "frame=key_frame", "-of", "csv=p=0", path] });
  assert.deepEqual(keys.trim().split("\n"), ["1", "0", "0", "0", "0", "1", "0", "0"]);
});

test("without a map the bytes are those of ffmpeg's libvpx-vp9 given the overlay's arguments (colour and alpha)", async () => {
  const frames = [0, 1, 2, 3, 0].map(captionFrame);
  const raw = join(dir, "frames.yuv");
  await writeFile(raw, Buffer.concat(frames));
  // render/overlay-output.ts: overlayColourArgs and overlayAlphaArgs, the first frame a key frame.
  const common = ["-enc_time_base", "1:1000", "-fps_mode", "passthrough", "-c:v", "libvpx-vp9", "-pix_fmt", "yuv420p", "-deadline", "realtime",
    "-cpu-used", "8", "-threads", "1", "-g", "1000000000", "-force_key_frames", "expr:eq(n,0)"];
  for (const [lossless, args] of [[false, ["-crf", "15", "-b:v", "0", "-aq-mode", "0"]], [true, ["-lossless", "1", "-lag-in-frames", "0", "-auto-alt-ref", "0"]]] as const) {
    const path = join(dir, `ffmpeg-${lossless}.ivf`);
    await runFfmpeg({ args: ["-hide_banner", "-loglevel", "error", "-y", "-f", "rawvideo", "-pix_fmt", "yuv420p", "-s", `${W}x${H}`, "-r", "25", "-i", raw, ...common, ...args, "-f", "ivf", path] });
    const theirs = readIvf(await readFile(path)).frames;
    const encoder = open({ lossless });
    const ours = await encodeAll(encoder, frames, [0], frames.map(() => undefined));
    encoder.close();
    assert.deepEqual(ours.map((p) => p.pts), theirs.map((f) => f.pts));
    ours.forEach((packet, i) => assert.ok(packet.data.equals(theirs[i]!.data), `${lossless ? "alpha" : "colour"} frame ${i} is ffmpeg's`));
  }
});

test("colour and alpha, encoded at once and written as IVF, read back and mux into a WebM with alpha that decodes to the alpha given", async () => {
  const colour = open({ lossless: false });
  const alpha = open({ lossless: true });
  const pictures = [0, 1, 2].map(captionFrame);
  // The alpha plane in the luma (255 in the strokes, 0 elsewhere), U = V = 128.
  const alphas = pictures.map((p) => Uint8Array.from(p, (v, i) => (i < W * H ? (v > 16 ? 255 : 0) : 128)));
  const paths = { colour: join(dir, "c.ivf"), alpha: join(dir, "a.ivf"), webm: join(dir, "overlay.webm") };
  // Both encoders at once, each on a thread of its own.
  const [colourPackets, alphaPackets] = await Promise.all([encodeAll(colour, pictures, [0]), encodeAll(alpha, alphas, [0])]);
  await writeIvf(paths.colour, colourPackets);
  await writeIvf(paths.alpha, alphaPackets);
  colour.close();
  alpha.close();
  const read = readIvf(await readFile(paths.colour));
  assert.deepEqual([read.fourcc, read.width, read.height, read.timeBase, read.frames.map((f) => f.pts)], ["VP90", W, H, { num: 1, den: 1000 }, [0, 40, 80]]);
  assert.deepEqual(await writeAlphaWebm(paths, {}), { colourFrames: 3, alphaFrames: 3 });
  const probe = await runFfprobe({ args: ["-v", "error", "-show_entries", "stream=codec_name,width,height:stream_tags=alpha_mode", "-of", "csv=p=0", paths.webm] });
  assert.equal(probe.trim(), `vp9,${W},${H},1`);
  const raw = join(dir, "overlay.yuva");
  await runFfmpeg({ args: ["-hide_banner", "-loglevel", "error", "-y", "-c:v", "libvpx-vp9", "-i", paths.webm, "-f", "rawvideo", "-pix_fmt", "yuva420p", raw] });
  const bytes = await readFile(raw);
  const size = FRAME + W * H;
  assert.equal(bytes.length, 3 * size);
  alphas.forEach((a, i) => assert.ok(bytes.subarray(i * size + FRAME, (i + 1) * size).equals(a.subarray(0, W * H)), `frame ${i}'s alpha`));
});

test("a 1080×1920 frame whose caption band changes decodes exactly (lossless), coded off the event loop", async () => {
  const [width, height] = [1080, 1920];
  const opened = openVp9Encoder({ width, height, lossless: true });
  assert.ok(opened.encoder, opened.reason);
  const encoder = opened.encoder;
  const first = new Uint8Array((width * height * 3) / 2).fill(0, 0, width * height).fill(128, width * height);
  const second = Uint8Array.from(first);
  for (let y = 1400; y < 1460; y++) second.fill(255, y * width + 200, y * width + 700);
  const active = new Uint8Array(encoder.rows * encoder.cols);
  for (let row = 1400 >> 4; row <= 1459 >> 4; row++) active.fill(1, row * encoder.cols + (200 >> 4), row * encoder.cols + (699 >> 4) + 1);
  // The event loop turns while libvpx codes the key frame on a thread of its own: an immediate queued after the call
  // runs before the encode settles (were it coded on the event loop, the call would settle first).
  let turned = false;
  const keyFrame = encoder.encode(first, 0, { key: true });
  setImmediate(() => (turned = true));
  const packets = await keyFrame;
  assert.ok(turned, "the event loop turned during the encode");
  packets.push(...(await encoder.encode(second, 33, { key: false, active })));
  encoder.close();
  const path = join(dir, "portrait.ivf");
  await writeIvf(path, packets, width, height);
  const decoded = await decode(path, width, height);
  assert.ok(decoded[0]!.equals(first) && decoded[1]!.equals(second));
});

test("bad frames, maps and calls are refused; a missing library or a refused ABI answers why instead of an encoder", async () => {
  assert.throws(() => openVp9Encoder({ width: 321, height: 240, lossless: true }), /even/);
  assert.match(openVp9Encoder({ width: W, height: H, lossless: true }, { sonames: ["libvpx-not-here.so.0"] }).reason ?? "", /libvpx could not be loaded \(libvpx-not-here/);
  assert.match(openVp9Encoder({ width: W, height: H, lossless: true }, { abiVersion: 26 }).reason ?? "", /refused the encoder \(ABI mismatch\)/);
  const encoder = open({ lossless: true });
  await assert.rejects(encoder.encode(new Uint8Array(FRAME - 1), 0, { key: true }), /I420 frame of 115200 bytes/);
  await assert.rejects(encoder.encode(captionFrame(0), 0.5, { key: true }), /whole milliseconds/);
  await assert.rejects(encoder.encode(captionFrame(0), 0, { key: false, active: new Uint8Array(3) }), /active map of 15×20/);
  const first = encoder.encode(captionFrame(0), 0, { key: true });
  await assert.rejects(encoder.encode(captionFrame(1), 40, { key: false }), /already encoding/);
  // Closed while libvpx codes the frame: the frame completes, then the encoder is freed and takes no other.
  encoder.close();
  await assert.rejects(encoder.encode(captionFrame(1), 40, { key: false }), /closed/);
  assert.equal((await first).length, 1);
  encoder.close();
  await assert.rejects(encoder.encode(captionFrame(0), 80, { key: false }), /closed/);
});
