import { readFile } from "node:fs/promises";
import type { H264Encoder } from "../media/h264-encoder.ts";
import { runFfmpeg } from "../media/ffmpeg.ts";

/**
 * libx264 encoding losslessly: pictures compared exactly need it, as multithreaded libx264 at CRF 20 is not
 * bit-for-bit repeatable even for the same input frames.
 */
export const LOSSLESS_ENCODER: H264Encoder = { encoder: "libx264", args: ["-c:v", "libx264", "-preset", "ultrafast", "-qp", "0", "-pix_fmt", "yuv420p"] };

/** The MD5 of every decoded frame of the video at `path` (written beside it as `<path>.framemd5`). */
export async function frameHashes(path: string): Promise<string[]> {
  const out = `${path}.framemd5`;
  await runFfmpeg({ args: ["-hide_banner", "-loglevel", "error", "-y", "-i", path, "-map", "0:v", "-f", "framemd5", out] });
  return (await readFile(out, "utf8")).split("\n").filter((line) => line !== "" && !line.startsWith("#")).map((line) => line.split(",").at(-1)!.trim());
}
