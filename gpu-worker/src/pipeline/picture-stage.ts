import { rm } from "node:fs/promises";
import path from "node:path";
import { VIDEO_FILES } from "@caption/shared/storage/result-files";
import { isHdr } from "../media/dynamic-range.ts";
import { grabFrames, picturesFromFrames } from "../media/frame-grabs.ts";
import type { MediaInfo } from "../media/media-info.ts";
import type { RenderedPictures } from "../render/render-video.ts";
import type { AttemptContext } from "./attempt-context.ts";
import type { LocalResultFile } from "./rendered-files.ts";

/** The strip's frames are this tall; their width follows the video's shape. */
const STRIP_HEIGHT = 320;

/** Where the render writes the frames it takes for the pictures (removed once they are made). */
export const TAKEN_FRAMES_FILE = "picture-frames.yuv";

/**
 * The poster (the frame with the most caption in the first 10 seconds) and the preview strip (8 captioned
 * frames evenly spaced), their instants chosen by the render from the cues: from the frames the render took as
 * it composited them, or, for an overlay alone (the render composites no frame), each found by seeking in the
 * uncaptioned copy with the ProRes overlay (every frame an intra frame) laid over it.
 */
export async function takePictures(
  ctx: AttemptContext,
  input: { media: MediaInfo; files: readonly LocalResultFile[]; pictures: RenderedPictures },
  signal: AbortSignal,
): Promise<LocalResultFile[]> {
  const { deps, dir, log } = ctx;
  const { media, pictures } = input;
  const { poster, strip } = pictures.chosen;
  const local = (file: LocalResultFile) => path.join(dir, file.name);
  const options = { signal, binary: deps.ffmpegPath, logger: log };
  const [posterPath, stripPath] = [local(VIDEO_FILES.poster), local(VIDEO_FILES.previewStrip)];
  // The instants come from the cues; where the render ended before one of their frames (the sound outlasts the
  // pictures), they are found by seeking, as for an overlay alone.
  const fromRender = pictures.framesPath !== null && await picturesFromFrames(
    { path: pictures.framesPath, width: media.width, height: media.height },
    { poster: { frame: poster.take, path: posterPath }, strip: { frames: strip.map((s) => s.take), path: stripPath, height: STRIP_HEIGHT } },
    options,
  );
  if (pictures.framesPath !== null) await rm(pictures.framesPath, { force: true });
  if (!fromRender) {
    const base = input.files[0]!;
    const overlay = base === VIDEO_FILES.uncaptioned;
    await grabFrames(
      { path: local(base), frameRate: media.frameRate, ...(overlay ? { overlayPath: local(VIDEO_FILES.overlayMov), hdr: isHdr(media) } : {}) },
      { poster: { at: poster.at, path: posterPath }, strip: { times: strip.map((s) => s.at), path: stripPath, height: STRIP_HEIGHT } },
      options,
    );
  }
  log.info({ poster_at: poster.at, strip_at: strip.map((s) => s.at), from_render: fromRender }, "poster and preview strip taken");
  return [VIDEO_FILES.poster, VIDEO_FILES.previewStrip];
}
