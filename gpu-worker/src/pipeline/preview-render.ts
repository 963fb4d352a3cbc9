import { mkdtemp, readFile, rm } from "node:fs/promises";
import path from "node:path";
import type { Logger } from "pino";
import { PREVIEW_CONTENT_TYPES, type PreviewRequest } from "@caption/shared/api/preview";
import { clipWindow, PREVIEW_FRAME_RATE, previewWords, stillInstant, timelineSeconds } from "@caption/shared/preview/preview-timeline";
import { backgroundProblem } from "@caption/shared/preview/background-rules";
import { resolveStyle } from "@caption/shared/style/resolve-style";
import { captionsInFrame, captionTimeline } from "../render/caption-timeline.ts";
import { renderPreviewClip, type ClipBackground } from "../render/preview-clip.ts";
import { PreviewRefused, type BackgroundVideo, type PreviewBackgrounds } from "./preview-backgrounds.ts";

export interface PreviewDeps {
  backgrounds: PreviewBackgrounds;
  /** Scratch space for clips. */
  dir: string;
  ffmpegPath: string;
  logger: Logger;
}

/** The video frame on screen at `t` seconds. */
const frameAt = (t: number, frameRate: number) => Math.max(0, Math.floor(t * frameRate + 1e-6));

/**
 * Draws a preview as a job of the same words would render it (same cue builder, layout, painter and fonts):
 * a still (PNG, WebP) of the frame at the request's instant, or an MP4 clip, over a checkerboard or over the
 * frames of one of the account's completed jobs or finished uploads (then at that job's frame rate; 30 fps otherwise).
 */
export async function renderPreview(
  deps: PreviewDeps,
  accountId: string,
  request: PreviewRequest,
  signal: AbortSignal,
): Promise<{ contentType: string; body: Buffer }> {
  const words = previewWords(request);
  const video: BackgroundVideo | undefined = request.background && (await deps.backgrounds.video(accountId, request.background));
  // The API checked a job's background; an upload's video is known here first.
  const problem = video && backgroundProblem(request, words, { kind: video.kind, id: video.id, ...video.media });
  if (problem) throw new PreviewRefused("INVALID_REQUEST", problem);
  const frameRate = video?.media.frameRate ?? PREVIEW_FRAME_RATE;
  const style = resolveStyle({ preset: request.preset, style: request.style, video: { width: request.width, height: request.height } });
  const timeline = captionTimeline(words, style, { durationSeconds: timelineSeconds(words, video?.media.durationSeconds), frameRate });
  const backgroundFrame = request.background ? frameAt(request.background.at, frameRate) : 0;
  const contentType = PREVIEW_CONTENT_TYPES[request.format];
  signal.throwIfAborted();

  if (request.format === "mp4") {
    const window = clipWindow(words, request);
    const count = Math.max(1, Math.round(window.seconds * frameRate));
    const background: ClipBackground = video
      ? { videoPath: await deps.backgrounds.sourcePath(video), media: video.media, firstFrame: backgroundFrame }
      : { picturePath: await deps.backgrounds.checkerboard(request.width, request.height).file, width: request.width, height: request.height };
    const dir = await mkdtemp(path.join(deps.dir, "clip-"));
    try {
      const outputPath = path.join(dir, "preview.mp4");
      const clip = { timeline, first: frameAt(window.start, frameRate), count, background, outputPath };
      await renderPreviewClip({ ...clip, signal, logger: deps.logger, ffmpegBinary: deps.ffmpegPath });
      return { contentType, body: await readFile(outputPath) };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  const raster = video ? await deps.backgrounds.frame(video, backgroundFrame, signal) : deps.backgrounds.checkerboard(request.width, request.height).raster;
  const captions = captionsInFrame(timeline, frameAt(stillInstant(words, request.at), frameRate));
  return { contentType, body: request.format === "png" ? await raster.png(captions, timeline.band) : await raster.webp(captions, timeline.band) };
}
