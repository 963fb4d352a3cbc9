import type { Logger } from "pino";
import { FfmpegError, runFfmpeg } from "../media/ffmpeg.ts";
import type { H264Encoder } from "../media/h264-encoder.ts";
import type { MediaInfo } from "../media/media-info.ts";
import { limitArg, sourceInputArgs } from "../media/source-input.ts";
import { audioOutputArgs, mp4OutputArgs } from "./render-video.ts";

/**
 * The video of a job that renders only the transparent overlay: the source without captions, as MP4, cut at
 * the billed duration, for the overlay to be laid on. Its video is copied as it is (nothing decoded) with the
 * audio as a burned video has it; a codec MP4 cannot hold (ProRes, DNxHD in a MOV) is encoded to H.264 instead
 * (an odd size padded to even).
 */
export async function writeUncaptionedMp4(options: {
  inputPath: string;
  outputPath: string;
  media: MediaInfo;
  encoder: H264Encoder;
  signal?: AbortSignal;
  logger?: Logger;
  ffmpegBinary?: string;
}): Promise<{ copied: boolean }> {
  const { media } = options;
  const run = (videoArgs: readonly string[]) =>
    runFfmpeg({
      binary: options.ffmpegBinary,
      signal: options.signal,
      logger: options.logger,
      args: [
        "-hide_banner", "-loglevel", "error", "-y",
        ...sourceInputArgs({ path: options.inputPath, container: media.container }, { limitSeconds: media.durationSeconds }),
        "-map", `0:${media.videoStreamIndex}`,
        ...videoArgs,
        ...audioOutputArgs(media),
        "-t", limitArg(media.durationSeconds),
        ...mp4OutputArgs(options.outputPath),
      ],
    });
  try {
    await run(["-c:v", "copy"]);
    return { copied: true };
  } catch (error) {
    if (!(error instanceof FfmpegError) || error.notStarted) throw error;
    options.logger?.info({ codec: media.videoCodec }, "the source's video cannot be copied into MP4; encoding it");
    // H.264 in 4:2:0 codes only even sizes: an odd-sized source gets a black column or row to the right or below,
    // where the overlay (laid at the top left, at the source's size) has none.
    const even = media.width % 2 === 0 && media.height % 2 === 0 ? [] : ["-vf", "pad=ceil(iw/2)*2:ceil(ih/2)*2"];
    await run([...even, ...options.encoder.args]);
    return { copied: false };
  }
}
