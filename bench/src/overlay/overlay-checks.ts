import { execFile } from "node:child_process";
import { promisify } from "node:util";

// What a transparent caption video must be: checked on a job's WebM and MOV against its burned video and
// its source (the checks issue 26 asks of a 60 s job rendering both).

const execFileAsync = promisify(execFile);
const BUFFER = 2 ** 31 - 1;

export interface OverlayChecks {
  /** Frames read from each file. */
  frames: number;
  /** Rows and columns holding any alpha in any frame of the WebM: the captions' reach. */
  alphaBox: { top: number; bottom: number; left: number; right: number } | null;
  /** Pixels of alpha 255 (the captions' fill) summed over the frames, in the WebM and in the MOV. */
  opaque: { webm: number; mov: number };
  /** Frames whose alpha differs between the WebM and the MOV by more than one count anywhere. */
  alphaMismatches: number;
  /**
   * The WebM laid over the source with ffmpeg's overlay against the burned MP4 (H.264 at CRF 20), over the
   * captions' rows: mean and largest difference of luma.
   */
  composite: { meanLuma: number; maxLuma: number };
}

async function raw(args: string[]): Promise<Buffer> {
  const { stdout } = await execFileAsync("ffmpeg", ["-v", "error", ...args, "-f", "rawvideo", "pipe:1"], { encoding: "buffer", maxBuffer: BUFFER });
  return stdout;
}

/**
 * Samples every `every`-th frame of the overlay's alpha (both files) and of the composite, for a video
 * `width` × `height`. Both files hold one frame per frame of the video, so the WebM's n-th frame is
 * the MOV's.
 */
export async function checkOverlay(
  files: { source: string; burned: string; webm: string; mov: string },
  video: { width: number; height: number },
  every = 30,
): Promise<OverlayChecks> {
  const size = video;
  const pixels = size.width * size.height;
  const select = `select=not(mod(n\\,${every})),alphaextract,format=gray`;
  const [webmAlpha, movAlpha] = await Promise.all([
    raw(["-c:v", "libvpx-vp9", "-i", files.webm, "-vf", select, "-fps_mode", "passthrough"]),
    raw(["-i", files.mov, "-vf", select, "-fps_mode", "passthrough"]),
  ]);
  const frames = Math.min(webmAlpha.length, movAlpha.length) / pixels;
  let alphaBox: OverlayChecks["alphaBox"] = null;
  const opaque = { webm: 0, mov: 0 };
  let alphaMismatches = 0;
  for (let f = 0; f < frames; f++) {
    let mismatch = false;
    for (let i = f * pixels; i < (f + 1) * pixels; i++) {
      const a = webmAlpha[i]!;
      if (a === 255) opaque.webm++;
      if (movAlpha[i] === 255) opaque.mov++;
      if (Math.abs(a - movAlpha[i]!) > 1) mismatch = true;
      if (a === 0) continue;
      const p = i - f * pixels;
      const [y, x] = [Math.floor(p / size.width), p % size.width];
      const box: NonNullable<OverlayChecks["alphaBox"]> = alphaBox ?? { top: y, bottom: y + 1, left: x, right: x + 1 };
      alphaBox = { top: Math.min(box.top, y), bottom: Math.max(box.bottom, y + 1), left: Math.min(box.left, x), right: Math.max(box.right, x + 1) };
    }
    if (mismatch) alphaMismatches++;
  }
  const lumaOnly = ["-vf", `select=not(mod(n\\,${every})),format=gray`, "-fps_mode", "passthrough"];
  const [composite, burned] = await Promise.all([
    raw(["-i", files.source, "-c:v", "libvpx-vp9", "-i", files.webm, "-filter_complex", `[0:v][1:v]overlay=alpha=straight:eof_action=pass,select=not(mod(n\\,${every})),format=gray`, "-fps_mode", "passthrough"]),
    raw(["-i", files.burned, ...lumaOnly]),
  ]);
  let sum = 0;
  let count = 0;
  let maxLuma = 0;
  if (alphaBox) {
    for (let f = 0; f < Math.min(composite.length, burned.length) / pixels; f++) {
      for (let y = alphaBox.top; y < alphaBox.bottom; y++) {
        for (let x = alphaBox.left; x < alphaBox.right; x++) {
          const i = f * pixels + y * size.width + x;
          const delta = Math.abs(composite[i]! - burned[i]!);
          sum += delta;
          maxLuma = Math.max(maxLuma, delta);
          count++;
        }
      }
    }
  }
  return { frames, alphaBox, opaque, alphaMismatches, composite: { meanLuma: count === 0 ? 0 : sum / count, maxLuma } };
}
