import { stat } from "node:fs/promises";
import { JobFailure } from "@caption/shared/errors/codes";
import type { Logger } from "pino";
import { runFfprobe } from "./ffmpeg.ts";
import type { MediaInfo } from "./media-info.ts";
import { sniffContainer } from "./source-container.ts";
import { sourceFailure } from "./source-failure.ts";
import { sourceInputArgs, type SourceFile } from "./source-input.ts";
import { PACKET_ENTRIES, streamExtent } from "./stream-extent.ts";

/** Each ffprobe run on a source must finish within this unless told otherwise (PROBE_TIMEOUT_SECONDS). */
export const DEFAULT_PROBE_TIMEOUT_MS = 15_000;

interface ProbeStream {
  index?: number;
  codec_type?: string;
  codec_name?: string;
  width?: number;
  height?: number;
  avg_frame_rate?: string;
  r_frame_rate?: string;
  duration?: string;
  disposition?: { attached_pic?: number };
  color_transfer?: string;
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
  /** Deadline of each ffprobe run; default DEFAULT_PROBE_TIMEOUT_MS. */
  timeoutMs?: number;
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

/** Runs ffprobe on the source; a file it cannot read (or not in time) is the job's fault, ffprobe missing is not. */
async function probe(args: string[], source: SourceFile, options: ProbeOptions): Promise<string> {
  try {
    return await runFfprobe({ args: ["-v", "error", ...args, ...sourceInputArgs(source)], ...options, timeoutMs: options.timeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS });
  } catch (error) {
    throw sourceFailure(error, "UNSUPPORTED_FORMAT", "The file is not a readable video");
  }
}

/**
 * Inspects an untrusted media file. Its container comes from its magic bytes (playlists, manifests
 * and scripts are refused before ffprobe opens anything); ffprobe then reads it with that demuxer
 * only, and the duration comes from the packets of the streams that will be decoded, not from the
 * header. Throws JobFailure UNSUPPORTED_FORMAT when the file is unreadable or has no video stream;
 * format and limit policy is `assertSupportedVideo`.
 */
export async function probeMedia(path: string, options: ProbeOptions = {}): Promise<MediaInfo> {
  options.signal?.throwIfAborted();
  const source: SourceFile = { path, container: await sniffContainer(path) };
  const [json, { size }] = await Promise.all([probe(["-print_format", "json", "-show_format", "-show_streams"], source, options), stat(path)]);
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
  if (!video?.codec_name || !video.width || !video.height || video.index === undefined) throw notReadable("The file has no video stream");
  if (audio && (!audio.codec_name || audio.index === undefined)) throw notReadable("The file's audio track has a codec that cannot be decoded");

  const declaredRate = parseFrameRate(video.avg_frame_rate);
  const audioIndex = audio?.index ?? null;
  const packets = await probe(PACKET_ENTRIES, source, options);
  const extent = streamExtent(packets, { video: video.index, audio: audioIndex, frameSeconds: 1 / (declaredRate ?? 30) });
  if (extent === null || extent.videoFrames === 0 || extent.durationSeconds <= 0) throw notReadable("The video stream has no frames that can be read");
  // Variable-rate files (MediaRecorder) may declare no average rate: the packets give it.
  const frameRate = declaredRate ?? (extent.videoFrames > 1 ? extent.videoFrames / extent.durationSeconds : parseFrameRate(video.r_frame_rate));
  if (frameRate === null) throw notReadable("The video stream has no frame rate");

  const quarterTurn = Math.abs(rotationDegrees(video)) % 180 === 90;
  return {
    container: source.container,
    formatName,
    durationSeconds: extent.durationSeconds,
    declaredDurationSeconds: positiveNumber(parsed.format?.duration),
    width: quarterTurn ? video.height : video.width,
    height: quarterTurn ? video.width : video.height,
    frameRate,
    videoFrames: extent.videoFrames,
    videoStreamIndex: video.index,
    audioStreamIndex: extent.audioPackets > 0 ? audioIndex : null,
    videoCodec: video.codec_name,
    colorTransfer: video.color_transfer ?? null,
    audioCodec: extent.audioPackets > 0 ? (audio?.codec_name ?? null) : null,
    hasAudio: extent.audioPackets > 0,
    sizeBytes: size,
  };
}
