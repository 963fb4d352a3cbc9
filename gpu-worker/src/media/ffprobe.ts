import { stat } from "node:fs/promises";
import { JobFailure } from "@caption/shared/errors/codes";
import type { Logger } from "pino";
import { FfmpegError, runFfprobe } from "./ffmpeg.ts";
import type { MediaInfo } from "./media-info.ts";

interface ProbeStream {
  codec_type?: string;
  codec_name?: string;
  width?: number;
  height?: number;
  avg_frame_rate?: string;
  r_frame_rate?: string;
  duration?: string;
  disposition?: { attached_pic?: number };
  tags?: { rotate?: string };
  side_data_list?: { rotation?: number }[];
}

interface ProbeOutput {
  streams?: ProbeStream[];
  format?: { format_name?: string; duration?: string };
}

export interface ProbeOptions {
  signal?: AbortSignal;
  /** Default "ffprobe". */
  binary?: string;
  logger?: Logger;
}

function positiveNumber(raw: string | undefined): number | null {
  const value = Number(raw);
  return raw !== undefined && Number.isFinite(value) && value > 0 ? value : null;
}

/** "30000/1001" → 29.97; "0/0" and garbage → null. */
export function parseFrameRate(raw: string | undefined): number | null {
  const match = raw?.match(/^(\d+(?:\.\d+)?)(?:\/(\d+(?:\.\d+)?))?$/);
  if (!match) return null;
  const rate = Number(match[1]) / Number(match[2] ?? 1);
  return Number.isFinite(rate) && rate > 0 ? rate : null;
}

function rotationDegrees(stream: ProbeStream): number {
  const fromSideData = stream.side_data_list?.find((entry) => typeof entry.rotation === "number")?.rotation;
  return fromSideData ?? Number(stream.tags?.rotate ?? 0);
}

function notReadable(message: string, cause?: unknown): JobFailure {
  return new JobFailure("UNSUPPORTED_FORMAT", message, cause === undefined ? undefined : { cause });
}

/** Runs ffprobe; a file it cannot read is the job's fault, ffprobe missing or killed is not. */
async function probe(args: string[], path: string, options: ProbeOptions): Promise<string> {
  try {
    return await runFfprobe({ args: ["-v", "error", ...args, path], ...options });
  } catch (error) {
    if (error instanceof FfmpegError && error.exitCode !== null) {
      throw notReadable(`The file is not a readable video: ${error.message}`, error);
    }
    throw error;
  }
}

/**
 * Some WebM files (browser MediaRecorder) carry no duration; the end of the last video packet
 * is then the duration.
 */
async function durationFromPackets(path: string, options: ProbeOptions): Promise<number | null> {
  const out = await probe(["-select_streams", "v:0", "-show_entries", "packet=pts_time,duration_time", "-of", "csv=p=0"], path, options);
  let end: number | null = null;
  for (const line of out.split("\n")) {
    const [pts, duration] = line.split(",");
    const start = Number(pts);
    if (!Number.isFinite(start) || pts === "") continue;
    const packetEnd = start + (positiveNumber(duration) ?? 0);
    end = end === null ? packetEnd : Math.max(end, packetEnd);
  }
  return end;
}

/**
 * Inspects a media file with ffprobe. Throws JobFailure UNSUPPORTED_FORMAT when the file is
 * unreadable or has no video stream; format and limit policy is `assertSupportedVideo`.
 */
export async function probeMedia(path: string, options: ProbeOptions = {}): Promise<MediaInfo> {
  const [json, { size }] = await Promise.all([
    probe(["-print_format", "json", "-show_format", "-show_streams"], path, options),
    stat(path),
  ]);
  let parsed: ProbeOutput;
  try {
    parsed = JSON.parse(json) as ProbeOutput;
  } catch (error) {
    throw notReadable("ffprobe returned unreadable output for the file", error);
  }
  const streams = parsed.streams ?? [];
  // Cover art in MP4/MOV shows up as a one-frame video stream.
  const video = streams.find((stream) => stream.codec_type === "video" && stream.disposition?.attached_pic !== 1);
  const audio = streams.find((stream) => stream.codec_type === "audio");
  const formatName = parsed.format?.format_name;
  if (!formatName) throw notReadable("The file's container format is not recognised");
  if (!video?.codec_name || !video.width || !video.height) throw notReadable("The file has no video stream");

  const frameRate = parseFrameRate(video.avg_frame_rate) ?? parseFrameRate(video.r_frame_rate);
  if (frameRate === null) throw notReadable("The video stream has no frame rate");
  const durationSeconds =
    positiveNumber(parsed.format?.duration) ?? positiveNumber(video.duration) ?? (await durationFromPackets(path, options));
  if (durationSeconds === null) throw notReadable("The video's duration cannot be determined");

  const quarterTurn = Math.abs(rotationDegrees(video)) % 180 === 90;
  return {
    formatName,
    durationSeconds,
    width: quarterTurn ? video.height : video.width,
    height: quarterTurn ? video.width : video.height,
    frameRate,
    videoCodec: video.codec_name,
    audioCodec: audio?.codec_name ?? null,
    hasAudio: audio !== undefined,
    sizeBytes: size,
  };
}
