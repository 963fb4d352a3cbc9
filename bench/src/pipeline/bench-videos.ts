import { makeSpeechVideo } from "@caption/gpu-worker/testing";
import type { Clip } from "./bench-result.ts";

export type Orientation = "portrait" | "landscape";

export interface BenchVideo {
  orientation: Orientation;
  width: number;
  height: number;
  path: string;
  durationSeconds: number;
  /** What flite was given to say; the clip ends wherever the video does. */
  narration: string;
}

export const FRAME_RATE = 30;
const SIZES: Record<Orientation, { width: number; height: number }> = {
  portrait: { width: 1080, height: 1920 },
  landscape: { width: 1920, height: 1080 },
};

// Plain narration (public-domain prose, Baum's "The Wonderful Wizard of Oz"), repeated to fill the video.
const PASSAGE = [
  "Dorothy lived in the midst of the great Kansas prairies, with Uncle Henry, who was a farmer, and Aunt Em, who was the farmer's wife.",
  "Their house was small, for the lumber to build it had to be carried by wagon many miles.",
  "There were four walls, a floor and a roof, which made one room; and this room contained a rusty looking cookstove, a cupboard for the dishes, a table, three or four chairs, and the beds.",
  "When Dorothy stood in the doorway and looked around, she could see nothing but the great gray prairie on every side.",
  "Not a tree nor a house broke the broad sweep of flat country that reached to the edge of the sky in all directions.",
  "The sun had baked the plowed land into a gray mass, with little cracks running through it.",
  "It was Toto that made Dorothy laugh, and saved her from growing as gray as her other surroundings.",
  "Toto was a little black dog, with long silky hair and small black eyes that twinkled merrily on either side of his funny, wee nose.",
].join(" ");
// A typical 1080p upload; it keeps a 600 s video (≈ 375 MB) under the service's 500 MiB download limit.
const VIDEO_BITRATE = "5M";
// flite's slt voice speaks about 2.7 words a second; a margin so the speech never runs out early.
const WORDS_PER_SECOND_CEILING = 3.2;

/** Enough of the passage to keep flite talking for `seconds`. */
export function narrationFor(seconds: number): string {
  const words = PASSAGE.split(" ");
  const needed = Math.ceil(seconds * WORDS_PER_SECOND_CEILING);
  return Array.from({ length: needed }, (_, i) => words[i % words.length]).join(" ");
}

/**
 * A flite narration over ffmpeg's moving test picture, 30 fps H.264 + AAC, cached under .tmp/fixtures
 * (generating a 600 s 1080p video takes minutes; later runs reuse it).
 */
export async function makeBenchVideo(orientation: Orientation, durationSeconds: number): Promise<BenchVideo> {
  const size = SIZES[orientation];
  const text = narrationFor(durationSeconds);
  const video = await makeSpeechVideo({ text, ...size, fps: FRAME_RATE, durationSeconds, padSeconds: 0.5, videoBitrate: VIDEO_BITRATE });
  return { orientation, ...size, path: video.path, durationSeconds: video.durationSeconds, narration: text };
}

/** How a result names the video it was measured on. */
export function clipOf(video: BenchVideo): Clip {
  return { orientation: video.orientation, width: video.width, height: video.height, duration_seconds: video.durationSeconds };
}
