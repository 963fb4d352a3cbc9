import path from "node:path";
import { VIDEO_FILES } from "@caption/shared/storage/result-files";
import type { ResolvedStyle } from "@caption/shared/style/resolved-style";
import { isHdr } from "../media/dynamic-range.ts";
import { grabFrames } from "../media/frame-grabs.ts";
import type { MediaInfo } from "../media/media-info.ts";
import type { Cue } from "../render/cue-builder.ts";
import { posterInstant, stripInstants } from "../render/picture-instants.ts";
import { planCaptions } from "../render/render-video.ts";
import type { AttemptContext } from "./attempt-context.ts";
import type { CaptionedVideo, LocalResultFile } from "./rendered-files.ts";

/** The strip's frames are this tall; their width follows the video's shape. */
const STRIP_HEIGHT = 320;

/**
 * The poster (the frame with the most caption in the first 10 seconds) and the preview strip (8 captioned
 * frames evenly spaced), their instants chosen from the cues and each frame found by seeking in the rendered
 * video: the burned one, or the uncaptioned copy with the ProRes overlay (every frame an intra frame) over it.
 */
export async function takePictures(
  ctx: AttemptContext,
  input: { cues: readonly Cue[]; style: ResolvedStyle; media: MediaInfo; video: CaptionedVideo },
): Promise<LocalResultFile[]> {
  const { deps, dir, signal, log } = ctx;
  const { media, video } = input;
  const { layouts } = planCaptions(input.cues, input.style, media.durationSeconds);
  const timeline = { layouts, style: input.style, durationSeconds: media.durationSeconds, frameRate: media.frameRate };
  const local = (file: LocalResultFile) => path.join(dir, file.name);
  const base = video.files[0]!;
  const overlay = base === VIDEO_FILES.uncaptioned;
  const poster = { at: posterInstant(timeline), path: local(VIDEO_FILES.poster) };
  await grabFrames(
    { path: local(base), frameRate: media.frameRate, ...(overlay ? { overlayPath: local(VIDEO_FILES.overlayMov), hdr: isHdr(media) } : {}) },
    { poster, strip: { times: stripInstants(timeline), path: local(VIDEO_FILES.previewStrip), height: STRIP_HEIGHT } },
    { signal, binary: deps.ffmpegPath, logger: log },
  );
  log.info({ poster_at: poster.at }, "poster and preview strip taken");
  return [VIDEO_FILES.poster, VIDEO_FILES.previewStrip];
}
