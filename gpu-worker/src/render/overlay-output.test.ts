import assert from "node:assert/strict";
import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { resolveStyle } from "@caption/shared/style/resolve-style";
import { runFfmpeg, runFfprobe } from "../media/ffmpeg.ts";
import { probeMedia } from "../media/ffprobe.ts";
import { LOSSLESS_ENCODER } from "../testing/frame-hashes.ts";
import { transparentCanvas } from "../testing/overlay-canvas.ts";
import { frameRateFraction } from "./overlay-output.ts";
import { planCaptions, renderCaptionedVideo } from "./render-video.ts";
import { buildStyledCues } from "./styled-cues.ts";

const [WIDTH, HEIGHT, FPS, SECONDS] = [360, 640, 30, 2];
const dir = await mkdtemp(join(tmpdir(), "overlay-output-"));
test.after(() => (process.env.KEEP ? undefined : rm(dir, { recursive: true, force: true })));

const source = join(dir, "source.mp4");
await runFfmpeg({
  args: ["-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i", `testsrc2=size=${WIDTH}x${HEIGHT}:rate=${FPS}`, "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000", "-t", String(SECONDS), "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", source],
});
const media = await probeMedia(source);
const style = resolveStyle({ preset: "karaoke", video: { width: WIDTH, height: HEIGHT } });
const words = "captions laid over any timeline".split(" ").map((text, i) => ({ text, start: 0.2 + i * 0.3, end: 0.45 + i * 0.3 }));
const cues = buildStyledCues(words, style, media.durationSeconds);
const { band } = planCaptions(cues, style, media.durationSeconds);
const paths = { burned: join(dir, "burned.mp4"), webm: join(dir, "overlay.webm"), mov: join(dir, "overlay.mov") };
const overlay = { webmPath: paths.webm, movPath: paths.mov };
// The caption stream the render pipes into ffmpeg, kept (tee) as the pictures the overlay should hold.
const captured = join(dir, "captions.mkv");
const ffmpegBinary = join(dir, "ffmpeg-tee");
// Only the process reading the Matroska caption stream; the MOV's tile encoders read raw pictures from theirs.
await writeFile(ffmpegBinary, `#!/bin/sh\ncase "$*" in *"-f matroska -i pipe:0"*) tee '${captured}' | ffmpeg "$@"; exit $?;; esac\nexec ffmpeg "$@"\n`);
await chmod(ffmpegBinary, 0o755);
await renderCaptionedVideo({ inputPath: source, outputPath: paths.burned, overlay, cues, style, media, encoder: LOSSLESS_ENCODER, ffmpegBinary });

async function probe(path: string): Promise<Record<string, string>> {
  const text = await runFfprobe({ args: ["-v", "error", "-count_packets", "-show_entries", "stream=codec_name,profile,pix_fmt,width,height,avg_frame_rate,nb_read_packets:stream_tags=alpha_mode:format=duration", "-of", "default=noprint_wrappers=1:nokey=0", path] });
  // Tag names as Matroska readers take them, whatever their case (a remux writes ALPHA_MODE).
  return Object.fromEntries(text.trim().split("\n").map((line) => line.replace(/^TAG:/, "").replace(/^[^=]+/, (key) => key.toLowerCase()).split("=") as [string, string]));
}

/** Every frame's alpha plane (8-bit, full size), decoded with libvpx so the WebM's alpha is read. */
async function alphaPlanes(path: string, decoder: string[]): Promise<Uint8Array[]> {
  const out = join(dir, `${Math.random().toString(36).slice(2)}.alpha`);
  await runFfmpeg({ args: ["-hide_banner", "-loglevel", "error", "-y", ...decoder, "-i", path, "-vf", "alphaextract,format=gray", "-f", "rawvideo", out] });
  const bytes = await readFile(out);
  const size = WIDTH * HEIGHT;
  return Array.from({ length: bytes.length / size }, (_, i) => bytes.subarray(i * size, (i + 1) * size));
}

test("the WebM is VP9 with alpha at the video's size, as long as the video, one frame per frame of the video", async () => {
  const webm = await probe(paths.webm);
  assert.deepEqual([webm.codec_name, webm.width, webm.height, webm.alpha_mode, webm.nb_read_packets], ["vp9", String(WIDTH), String(HEIGHT), "1", String(SECONDS * FPS)]);
  assert.ok(Math.abs(Number(webm.duration) - SECONDS) <= 1 / FPS + 0.001, `${webm.duration} s`);
});

test("the MOV is ProRes 4444 with alpha, one sample per frame of the video at its rate", async () => {
  const mov = await probe(paths.mov);
  assert.deepEqual([mov.codec_name, mov.profile, mov.width, mov.height, mov.avg_frame_rate, mov.nb_read_packets], ["prores", "4444", String(WIDTH), String(HEIGHT), `${FPS}/1`, String(SECONDS * FPS)]);
  assert.match(mov.pix_fmt ?? "", /^yuva444p1[02]le$/);
  assert.equal(Number(mov.duration), SECONDS);
});

test("alpha is zero outside the band and opaque where the captions are drawn, in both files", async () => {
  for (const [path, decoder] of [[paths.webm, ["-c:v", "libvpx-vp9"]], [paths.mov, []]] as const) {
    const planes = await alphaPlanes(path, [...decoder]);
    assert.ok(planes.length >= 2);
    let opaque = 0;
    for (const plane of planes) {
      for (let y = 0; y < HEIGHT; y++) {
        for (let x = 0; x < WIDTH; x++) {
          const inBand = x >= band.x && x < band.x + band.width && y >= band.y && y < band.y + band.height;
          const alpha = plane[y * WIDTH + x]!;
          if (!inBand) assert.equal(alpha, 0, `${path}: alpha ${alpha} at ${x},${y} outside the band`);
          else if (alpha === 255) opaque++;
        }
      }
    }
    assert.ok(opaque > 1000, `${path}: ${opaque} opaque caption pixels`);
  }
});

/** Every frame decoded, as raw yuv420p (or the alpha planes alone), frame for frame as they come. */
async function raw(args: string[], format = "yuv420p"): Promise<Buffer> {
  const out = join(dir, `${Math.random().toString(36).slice(2)}.raw`);
  await runFfmpeg({ args: ["-hide_banner", "-loglevel", "error", "-y", ...args, "-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt", format, out] });
  return readFile(out);
}

/** Luma differences in the caption band, every frame: mean and largest. */
function bandLumaDelta(a: Buffer, b: Buffer): { mean: number; largest: number } {
  assert.equal(a.length, b.length);
  const frameBytes = (WIDTH * HEIGHT * 3) / 2;
  let [sum, count, largest] = [0, 0, 0];
  for (let frame = 0; frame < a.length / frameBytes; frame++) {
    for (let y = band.y; y < band.y + band.height; y++) {
      for (let x = band.x; x < band.x + band.width; x++) {
        const delta = Math.abs(a[frame * frameBytes + y * WIDTH + x]! - b[frame * frameBytes + y * WIDTH + x]!);
        [sum, count, largest] = [sum + delta, count + 1, Math.max(largest, delta)];
      }
    }
  }
  return { mean: sum / count, largest };
}

test("the WebM's alpha is the caption stream's alpha exactly, frame for frame", async () => {
  const held = ["-vf", `${transparentCanvas(media, band)},fps=${FPS},alphaextract`, "-t", String(SECONDS)];
  const [webm, piped] = await Promise.all([
    raw(["-c:v", "libvpx-vp9", "-i", paths.webm, "-vf", "alphaextract"], "gray"),
    raw(["-i", captured, "-map", "0:v:0", ...held], "gray"),
  ]);
  const size = WIDTH * HEIGHT;
  assert.equal(webm.length, SECONDS * FPS * size);
  assert.equal(piped.length, webm.length);
  const frame = (bytes: Buffer, i: number) => bytes.subarray(i * size, (i + 1) * size);
  const differing = Array.from({ length: SECONDS * FPS }, (_, i) => i).filter((i) => !frame(webm, i).equals(frame(piped, i)));
  assert.deepEqual(differing, []);
});

test("the WebM laid over the source with ffmpeg's overlay gives the burned video's caption band, within VP9's loss", async () => {
  const [composite, burned] = await Promise.all([
    raw(["-i", source, "-c:v", "libvpx-vp9", "-i", paths.webm, "-filter_complex", "[0:v][1:v]overlay=alpha=straight:eof_action=pass[v]", "-map", "[v]"]),
    raw(["-i", paths.burned, "-map", "0:v"]),
  ]);
  // The burned video is lossless here: what differs is the WebM's colour loss (CRF 15), at the letters' edges:
  // 0.32 on average and 13 at most when written; H.264 at the burned video's CRF 20 loses 2.1 and 53 in the ink's box.
  const { mean, largest } = bandLumaDelta(composite, burned);
  assert.ok(mean < 0.5 && largest <= 40, `luma differs by ${mean.toFixed(3)} on average, ${largest} at most`);
});

test("the overlay alone reads nothing of the source and makes the same WebM frames", async () => {
  const alone = { webmPath: join(dir, "alone.webm"), movPath: join(dir, "alone.mov") };
  await renderCaptionedVideo({ inputPath: join(dir, "no-such-source.mp4"), overlay: alone, cues, style, media, encoder: LOSSLESS_ENCODER });
  const decoded = async (path: string) => {
    const out = join(dir, `${Math.random().toString(36).slice(2)}.framemd5`);
    await runFfmpeg({ args: ["-hide_banner", "-loglevel", "error", "-y", "-c:v", "libvpx-vp9", "-i", path, "-f", "framemd5", out] });
    return (await readFile(out, "utf8")).split("\n").filter((line) => line !== "" && !line.startsWith("#"));
  };
  assert.deepEqual(await decoded(alone.webmPath), await decoded(paths.webm));
  assert.equal((await probe(alone.movPath)).nb_read_packets, String(SECONDS * FPS));
});

test("the MOV shows the caption stream's pictures frame for frame: the same alpha, changing where the stream does", async () => {
  const held = ["-vf", `${transparentCanvas(media, band)},fps=${FPS}`, "-t", String(SECONDS)];
  const [mov, piped] = await Promise.all([raw(["-i", paths.mov], "yuva444p"), raw(["-i", captured, "-map", "0:v:0", ...held], "yuva444p")]);
  const size = 4 * WIDTH * HEIGHT;
  assert.equal(mov.length, SECONDS * FPS * size);
  assert.equal(piped.length, mov.length);
  const frames = Array.from({ length: SECONDS * FPS }, (_, i) => i);
  const frame = (bytes: Buffer, i: number) => bytes.subarray(i * size, (i + 1) * size);
  const alpha = (bytes: Buffer, i: number) => frame(bytes, i).subarray(3 * WIDTH * HEIGHT);
  // ProRes codes alpha losslessly, in 16 bits: 8 to 16 bits and back rounds it by 1 at most.
  const alphaOff = (i: number) => alpha(mov, i).reduce((most, value, k) => Math.max(most, Math.abs(value - alpha(piped, i)[k]!)), 0);
  assert.deepEqual(frames.map(alphaOff).filter((off) => off > 1), []);
  const changes = (bytes: Buffer) => frames.filter((i) => i > 0 && !frame(bytes, i).equals(frame(bytes, i - 1)));
  assert.ok(changes(mov).length > 10, `${changes(mov).length} changes`);
  assert.deepEqual(changes(mov), changes(piped));
});

test("frame rates as fractions: NTSC rates exactly, whole rates as they are", () => {
  assert.deepEqual(frameRateFraction(30000 / 1001), { num: 30000, den: 1001 });
  assert.deepEqual(frameRateFraction(24000 / 1001), { num: 24000, den: 1001 });
  assert.deepEqual(frameRateFraction(25), { num: 25, den: 1 });
  assert.deepEqual(frameRateFraction(12.5), { num: 12500, den: 1000 });
});

test("the MOV laid over the source gives the burned video's caption band, within ProRes's loss", async () => {
  const [composite, burned] = await Promise.all([
    raw(["-i", source, "-i", paths.mov, "-filter_complex", "[0:v][1:v]overlay=alpha=straight:eof_action=pass[v]", "-map", "[v]"]),
    raw(["-i", paths.burned, "-map", "0:v"]),
  ]);
  const { mean, largest } = bandLumaDelta(composite, burned);
  assert.ok(mean < 0.5 && largest <= 24, `luma differs by ${mean.toFixed(3)} on average, ${largest} at most`);
});

test("seeking: at 10 instants, the WebM over the source, each read from the instant on, is the burned frame's caption band", async () => {
  const frameMs = (n: number) => Math.floor((n * 1000) / FPS + 1e-6);
  // The first frame; three words' first frames and the frame just before each; mid-word; after the last word, where
  // the captions hold; the last frame.
  const changes = words.slice(0, 3).map((word) => Math.round(word.start * FPS));
  const instants = [0, ...changes.flatMap((frame) => [frame - 1, frame]), 20, 52, SECONDS * FPS - 1];
  const first = (args: string[]) => raw([...args, "-frames:v", "1"]);
  const captioned: number[] = [];
  for (const n of instants) {
    // To the millisecond, as a person or a script gives an instant.
    const t = String(frameMs(n) / 1000);
    const [composite, burned, plain] = await Promise.all([
      first(["-ss", t, "-i", source, "-ss", t, "-c:v", "libvpx-vp9", "-i", paths.webm, "-filter_complex", "[0:v][1:v]overlay=alpha=straight:eof_action=pass[v]", "-map", "[v]"]),
      first(["-ss", t, "-i", paths.burned, "-map", "0:v"]),
      first(["-ss", t, "-i", source, "-map", "0:v"]),
    ]);
    const { mean, largest } = bandLumaDelta(composite, burned);
    assert.ok(mean < 1 && largest <= 40, `at ${t} s (frame ${n}) the luma differs by ${mean.toFixed(3)} on average, ${largest} at most`);
    if (bandLumaDelta(burned, plain).mean > 2) captioned.push(n);
  }
  // The instants show captions (not a comparison of two uncaptioned frames), except the first two (before the first
  // word) and the last (the captions gone).
  assert.deepEqual(captioned, instants.filter((n) => n > changes[0]! - 1 && n < SECONDS * FPS - 1));
});

test("an odd-sized video's overlay: the WebM and the MOV at its very size, the same alpha", async () => {
  const [width, height] = [361, 641];
  const odd = join(dir, "odd.mp4");
  await runFfmpeg({
    args: ["-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i", `testsrc2=size=${WIDTH}x${HEIGHT}:rate=${FPS}`, "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000", "-t", "1", "-vf", `scale=${width}:${height},format=yuv444p`, "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", odd],
  });
  const oddMedia = await probeMedia(odd);
  assert.deepEqual([oddMedia.width, oddMedia.height], [width, height]);
  const oddStyle = resolveStyle({ preset: "karaoke", video: { width, height } });
  const oddCues = buildStyledCues(words.slice(0, 2), oddStyle, oddMedia.durationSeconds);
  const files = { webmPath: join(dir, "odd.webm"), movPath: join(dir, "odd.mov") };
  await renderCaptionedVideo({ inputPath: odd, overlay: files, cues: oddCues, style: oddStyle, media: oddMedia, encoder: LOSSLESS_ENCODER });
  const [webm, mov] = await Promise.all([probe(files.webmPath), probe(files.movPath)]);
  const sizeAndFrames = [String(width), String(height), String(FPS)];
  assert.deepEqual([webm.width, webm.height, webm.nb_read_packets, mov.width, mov.height, mov.nb_read_packets], [...sizeAndFrames, ...sizeAndFrames]);
  const alpha = (args: string[]) => raw([...args, "-vf", "alphaextract"], "gray");
  const [webmAlpha, movAlpha] = await Promise.all([alpha(["-c:v", "libvpx-vp9", "-i", files.webmPath]), alpha(["-i", files.movPath])]);
  assert.equal(webmAlpha.length, FPS * width * height);
  assert.equal(movAlpha.length, webmAlpha.length);
  // ProRes keeps alpha in 16 bits: 8 to 16 bits and back rounds it by 1 at most.
  assert.ok(webmAlpha.every((value, i) => Math.abs(value - movAlpha[i]!) <= 1));
  assert.ok(webmAlpha.filter((value) => value === 255).length > 1000, "the captions are drawn");
});
