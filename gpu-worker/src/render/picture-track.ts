import type { MediaInfo } from "../media/media-info.ts";
import type { FramesToTake } from "./picture-chooser.ts";

// The frames the render takes for the poster and the preview strip, in the render's own ffmpeg as its
// composited frames pass, never by decoding the output again. The caption stream's mark track (a 2 x 2 gray
// frame: bright to take, dark to pass) drives a blend that copies the composited frame on screen at each mark;
// the taken ones are written one after another, raw, for media/frame-grabs.ts to make the JPEGs from.
// Dark marks keep the blend moving: it waits for its next mark before it lets a composited frame go, so a mark
// is sent at least once per cue, before the cue's caption frames, at the frame no later take can precede.

/** A mark of the caption stream's mark track. */
export interface FrameMark {
  markMs: number;
  take: boolean;
}

/**
 * The marks for what the chooser asks after a cue: a take in the middle of each frame's time (so ffmpeg's
 * frame on screen then is that frame, whatever the source's rounding), then a pass at the settled frame's start.
 */
export function frameMarks(toTake: FramesToTake, frameRate: number): FrameMark[] {
  return [
    ...toTake.frames.map((frame) => ({ markMs: Math.round(((frame + 0.5) * 1000) / frameRate), take: true })),
    { markMs: Math.floor((toTake.settledFrame * 1000) / frameRate), take: false },
  ];
}

/**
 * The filter graph's part: from the composited video `composited` (yuv420p) and the mark track `marks`, the
 * label [pictures], one frame per take. The blend's top (the mark, its brightness in its metadata) sets the
 * times; at opacity 0 it copies the bottom, the composited frame, whole.
 */
export function pictureGraph(composited: string, marks: string, media: Pick<MediaInfo, "width" | "height">): string[] {
  return [
    `${composited}setsar=1[picture_frames]`,
    `${marks}signalstats,scale=${media.width}:${media.height}:flags=neighbor,format=yuv420p,setsar=1[picture_marks]`,
    "[picture_marks][picture_frames]blend=all_mode=normal:all_opacity=0:shortest=1," +
      "metadata=mode=select:key=lavfi.signalstats.YMAX:value=128:function=greater[pictures]",
  ];
}

/** The taken frames, raw yuv420p one after another, as many as were taken (no frame repeated or dropped). */
export const pictureOutputArgs = (path: string): string[] => ["-map", "[pictures]", "-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt", "yuv420p", path];
