import { limitArg } from "../media/source-input.ts";
import type { MediaInfo } from "../media/media-info.ts";
import { keyFrameExpression } from "./alpha-track.ts";
import type { Band } from "./band-layout.ts";

// The transparent caption video (output kind "overlay"): its files, its key frames, and ffmpeg's part in the WebM
// (render/overlay-encoders.ts): ffmpeg's libvpx-vp9 is given the whole frame from the caption stream, the colour
// planes (lossy) wherever the picture changes and the alpha plane (lossless) only where the alpha changes
// (render/alpha-track.ts); media/vp9-alpha-webm.ts puts the two streams together, one frame per video frame.

/** The transparent caption video: captions alone at the video's size on a transparent canvas. */
export interface OverlayOutputs {
  /** WebM, VP9 with alpha (yuva420p; alpha lossless): one frame per frame of the video (an unchanged one shows the last again). */
  webmPath: string;
  /** QuickTime, ProRes 4444 with alpha, every frame of the video (unchanged frames share their picture's data). */
  movPath: string;
}

/** Milliseconds between the WebM's key frames (at least: the first frame sent after), where players start after a seek. */
export const OVERLAY_WEBM_KEY_INTERVAL_MS = 4000;

// Real time, speed 8 (libvpx's fastest here), one thread (libvpx's threads cost a third more CPU on a busy
// machine, and the render's other encoders and painting keep the cores busy); key frames only where
// keyFrameExpression puts them. No hidden frames (no look-ahead, no alternate reference): every frame coded is
// shown and becomes the last frame (reference slot 0), which a frame that shows the last one again names.
const vp9 = (keyIntervalMs: number): string[] => ["-enc_time_base", "1:1000", "-c:v", "libvpx-vp9", "-pix_fmt", "yuv420p", "-deadline", "realtime",
  "-cpu-used", "8", "-threads", "1", "-g", "1000000000", "-force_key_frames", keyFrameExpression(keyIntervalMs), "-lag-in-frames", "0", "-auto-alt-ref", "0"];

/**
 * The WebM's colour planes: lossy at a constant quality (CRF 15 of VP9's 63) whose loss at the letters' edges is
 * below the burned video's own H.264 loss (docs/previews-and-overlays.md, Measured). libvpx's real-time cost is
 * the frame's area, whatever is drawn: lossless cost about twice as much, and the lossless alpha as much again.
 */
export const overlayColourArgs = (keyIntervalMs: number): string[] => [...vp9(keyIntervalMs), "-crf", "15", "-b:v", "0", "-aq-mode", "0"];

/** The WebM's alpha plane, lossless: exactly 0 around the captions and 255 in their fill. */
export const overlayAlphaArgs = (keyIntervalMs: number): string[] => [...vp9(keyIntervalMs), "-lossless", "1"];

/** The files ffmpeg writes for the overlay, made into its outputs once ffmpeg is done. */
export interface OverlayParts {
  /** The WebM's colour planes (VP9 in WebM), a frame wherever the picture changes. */
  colour: string;
  /** The WebM's alpha plane (VP9 in WebM), a frame where the alpha changes and at each colour key frame. */
  alpha: string;
}

export const overlayParts = (overlay: OverlayOutputs): OverlayParts => ({
  colour: `${overlay.webmPath}.colour.webm`,
  alpha: `${overlay.webmPath}.alpha.webm`,
});

/**
 * The overlay's part of the filter graph, from the caption input's two streams `[N:v:0]` (the band) and
 * `[N:v:1]` (its alpha planes where they change): labels [webmc] (colour planes of the whole frame), [webma]
 * (alpha plane, padded with zeros, copied into the luma of a 4:2:0 picture without a range conversion).
 */
export function overlayGraph(band: string, alpha: string, media: Pick<MediaInfo, "width" | "height">, place: Band): string[] {
  const frame = wholeFrame(media, place);
  return [
    // Colour planes alone, then padded: the same pixels as padding the transparent band, a third less copied.
    `${band}format=yuv420p,${frame}[webmc]`,
    `${alpha}format=yuvj420p,${frame},scale=in_range=pc:out_range=pc,format=yuv420p,setrange=tv[webma]`,
  ];
}

/**
 * The band padded with black to the video's size. ffmpeg's pad rounds a 4:2:0 picture's size down to even, so an
 * odd size is padded to the even size above and cropped back exactly (a crop moves no pixels): VP9 codes frames of
 * any size, and the WebM has the video's own, as the MOV does.
 */
function wholeFrame(media: Pick<MediaInfo, "width" | "height">, place: Band): string {
  const even = (size: number) => size + (size % 2);
  const pad = `pad=${even(media.width)}:${even(media.height)}:${place.x}:${place.y}:color=black`;
  return media.width % 2 === 0 && media.height % 2 === 0 ? pad : `${pad},crop=${media.width}:${media.height}:0:0:exact=1`;
}

/**
 * ffmpeg's overlay outputs: the frames as they come (passthrough: ffmpeg duplicates no unchanged frame; the
 * frames between are added as frames showing the last one when the streams are put together), cut at the video's
 * duration. The WebM's streams keep the caption stream's millisecond times, floored onto the video's frame grid as
 * the burned video's overlay reads them (Matroska rounds any other clock to the nearest millisecond, which can
 * land a change after the frame it belongs to).
 */
export function overlayOutputArgs(media: Pick<MediaInfo, "frameRate" | "durationSeconds">, parts: OverlayParts, keyIntervalMs = OVERLAY_WEBM_KEY_INTERVAL_MS): string[] {
  const output = (label: string, codec: string[], format: string, path: string) =>
    ["-map", label, "-fps_mode", "passthrough", ...codec, "-an", "-t", limitArg(media.durationSeconds), "-f", format, path];
  return [
    ...output("[webmc]", overlayColourArgs(keyIntervalMs), "webm", parts.colour),
    ...output("[webma]", overlayAlphaArgs(keyIntervalMs), "webm", parts.alpha),
  ];
}

/**
 * A frame rate as a fraction: the NTSC rates (24000/1001, 30000/1001, 60000/1001…) exactly, whole rates as
 * they are, anything else to a millisecond of a frame per second.
 */
export function frameRateFraction(rate: number): { num: number; den: number } {
  for (const den of [1, 1001]) {
    const num = Math.round((rate * den) / (den === 1 ? 1 : 1000)) * (den === 1 ? 1 : 1000);
    if (Math.abs(num / den - rate) < 1e-6 * rate) return { num, den };
  }
  return { num: Math.round(rate * 1000), den: 1000 };
}
