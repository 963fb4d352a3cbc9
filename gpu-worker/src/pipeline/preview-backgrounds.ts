import { mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { buffer } from "node:stream/consumers";
import type { Logger } from "pino";
import { Value } from "@sinclair/typebox/value";
import type { Db } from "@caption/shared/db/database";
import type { PreviewRequest } from "@caption/shared/api/preview";
import { uploadExpiredMessage, uploadUnreadable } from "@caption/shared/api/upload";
import { JobFailure } from "@caption/shared/errors/codes";
import { UPLOADS_FOLDER } from "@caption/shared/storage/result-files";
import { loadJob } from "../db/job-repository.ts";
import { loadUpload } from "../db/upload-repository.ts";
import { HDR_TO_SDR_FILTER, isHdr } from "../media/dynamic-range.ts";
import { streamFfmpegOutput } from "../media/ffmpeg.ts";
import { seekPoint } from "../media/frame-grabs.ts";
import { probeMedia } from "../media/ffprobe.ts";
import { MediaInfoSchema, type MediaInfo } from "../media/media-info.ts";
import { assertSupportedVideo } from "../media/video-limits.ts";
import { sourceInputArgs } from "../media/source-input.ts";
import { StillRaster } from "../render/still-raster.ts";
import { checkerboard, Yuv420Frame } from "../render/yuv-frame.ts";
import { SOURCE_VIDEO_FILE, StoredFileMissing, type ResultStore } from "../storage/result-store.ts";
import { Recent } from "./recent-entries.ts";

type RefusalCode = "NOT_FOUND" | "SOURCE_NOT_RENDERABLE" | "INVALID_REQUEST" | "UPLOAD_EXPIRED" | "UPLOAD_INCOMPLETE";

/** A preview the worker cannot draw for a reason of the request's (the API maps the code as for its own). */
export class PreviewRefused extends Error {
  readonly code: RefusalCode;
  constructor(code: RefusalCode, message: string) {
    super(message);
    this.name = "PreviewRefused";
    this.code = code;
  }
}

/** Removes a cached file once it has been written (nothing when writing it failed). */
const removeWhenWritten = (file: Promise<string>) => void file.then((done) => rm(done, { force: true })).catch(() => undefined);

/** `promise`, or the signal's reason once it aborts first: the waiter stops, the work goes on for others. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      if (signal.aborted) reject(signal.reason);
      signal.addEventListener("abort", () => reject(signal.reason), { once: true });
    }),
  ]);
}

/** A video a preview is drawn over: a completed job's source, or a finished upload. */
export interface BackgroundVideo {
  kind: "job" | "upload";
  id: string;
  media: MediaInfo;
}
type StoredVideo = Pick<BackgroundVideo, "kind" | "id">;
const cacheKey = (video: StoredVideo) => `${video.kind}-${video.id}`;

// A style picker asks for many previews over the same frame: the source videos and decoded frames last
// asked for are kept, a few of each.
// (A 1080p frame ready for stills is about 15 MB.)
const KEPT_VIDEOS = 4;
const KEPT_FRAMES = 6;
const KEPT_CHECKERBOARDS = 4;
const KEPT_PROBES = 16;

/**
 * What previews are drawn over: checkerboards, and the frames of the account's completed jobs and finished
 * uploads (their stored videos, copied into the worker's scratch space once and kept while they are in use; an
 * upload is probed there as a job's download is, by the same rules). A copy or probe that outlives a preview's
 * deadline still completes, so the client's retry finds it.
 */
export class PreviewBackgrounds {
  readonly #db: Db;
  readonly #store: ResultStore;
  readonly #dir: string;
  readonly #ffmpegPath: string;
  readonly #ffprobePath: string;
  readonly #logger: Logger;
  readonly #videos: Recent<Promise<string>>;
  readonly #frames = new Recent<Promise<StillRaster>>(KEPT_FRAMES);
  readonly #probes = new Recent<Promise<MediaInfo>>(KEPT_PROBES);
  readonly #checkerboards = new Recent<{ raster: StillRaster; file: Promise<string> }>(KEPT_CHECKERBOARDS, (_, { file }) => removeWhenWritten(file));

  constructor(deps: { db: Db; store: ResultStore; dir: string; ffmpegPath: string; ffprobePath: string; logger: Logger }) {
    this.#db = deps.db;
    this.#store = deps.store;
    this.#dir = deps.dir;
    this.#ffmpegPath = deps.ffmpegPath;
    this.#ffprobePath = deps.ffprobePath;
    this.#logger = deps.logger;
    this.#videos = new Recent(KEPT_VIDEOS, (_, file) => removeWhenWritten(file));
  }

  /** The account's job or upload named by `background`, if it can be one; else the refusal, as the API words it. */
  video(accountId: string, background: NonNullable<PreviewRequest["background"]>, now = new Date()): Promise<BackgroundVideo> {
    return background.upload_id === undefined ? this.#job(accountId, background.job_id ?? "", now) : this.#upload(accountId, background.upload_id, now);
  }

  async #job(accountId: string, jobId: string, now: Date): Promise<BackgroundVideo> {
    const job = await loadJob(this.#db, jobId);
    if (!job || job.account_id !== accountId) throw new PreviewRefused("NOT_FOUND", "background.job_id: job not found");
    const kept = job.status === "completed" && job.files_deleted_at === null && job.expires_at !== null && job.expires_at > now && job.source_video_key !== null;
    if (!kept || !Value.Check(MediaInfoSchema, job.media)) {
      throw new PreviewRefused("SOURCE_NOT_RENDERABLE", `background.job_id: job ${jobId} is not a completed job whose files are kept`);
    }
    return { kind: "job", id: jobId, media: job.media };
  }

  async #upload(accountId: string, uploadId: string, now: Date): Promise<BackgroundVideo> {
    const upload = await loadUpload(this.#db, uploadId);
    if (!upload || upload.account_id !== accountId) throw new PreviewRefused("NOT_FOUND", "background.upload_id: upload not found");
    const unreadable = uploadUnreadable(upload, now);
    if (unreadable) throw new PreviewRefused(unreadable.code, unreadable.message);
    const video = { kind: "upload", id: uploadId } as const;
    const probed = this.#probes.get(uploadId) ?? this.#probes.set(uploadId, this.sourcePath(video).then((file) => this.#probe(uploadId, file)));
    probed.catch(() => this.#probes.delete(uploadId));
    return { ...video, media: await probed };
  }

  /** An upload's video, inspected by the rules of a job's source: a file a job would refuse is no background. */
  async #probe(uploadId: string, file: string): Promise<MediaInfo> {
    try {
      const media = await probeMedia(file, { binary: this.#ffprobePath, logger: this.#logger });
      assertSupportedVideo(media);
      return media;
    } catch (error) {
      if (error instanceof JobFailure) throw new PreviewRefused("SOURCE_NOT_RENDERABLE", `background.upload_id: upload ${uploadId} cannot be a preview's background: ${error.message}`);
      throw error;
    }
  }

  /** The background's stored video in the scratch space. */
  sourcePath(video: StoredVideo): Promise<string> {
    const key = cacheKey(video);
    const cached = this.#videos.get(key);
    if (cached) return cached;
    const file = path.join(this.#dir, `${key}.source`);
    const [folder, name] = video.kind === "job" ? [video.id, SOURCE_VIDEO_FILE.name] : [UPLOADS_FOLDER, video.id];
    const copy = mkdir(this.#dir, { recursive: true })
      .then(() => this.#store.get(folder, name, file))
      .then(() => file);
    copy.catch((error: unknown) => {
      this.#videos.delete(key);
      this.#logger.warn({ [`${video.kind}_id`]: video.id, err: error }, "background video could not be copied");
    });
    return this.#videos.set(
      key,
      copy.catch((error: unknown) => {
        if (!(error instanceof StoredFileMissing)) throw error;
        throw video.kind === "job"
          ? new PreviewRefused("SOURCE_NOT_RENDERABLE", `background.job_id: the files of job ${video.id} are gone`)
          : new PreviewRefused("UPLOAD_EXPIRED", uploadExpiredMessage(video.id));
      }),
    );
  }

  /** Frame `n` (from 0) of the job's video, decoded as its render decoded it (tone-mapped when HDR). */
  frame(background: BackgroundVideo, n: number, signal?: AbortSignal): Promise<StillRaster> {
    const key = `${cacheKey(background)}#${n}`;
    const cached = this.#frames.get(key);
    if (cached) return untilAborted(cached, signal);
    const { media } = background;
    // Not stopped with the request that asked first: another may be waiting for the same frame.
    const decoded = this.sourcePath(background).then(async (file) => {
      const run = streamFfmpegOutput({
        binary: this.#ffmpegPath,
        args: [
          "-hide_banner", "-loglevel", "error",
          "-ss", seekPoint(n / media.frameRate, media.frameRate).toFixed(6),
          ...sourceInputArgs({ path: file, container: media.container }),
          "-map", `0:${media.videoStreamIndex}`,
          ...(isHdr(media) ? ["-vf", HDR_TO_SDR_FILTER] : []),
          "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "yuv420p", "pipe:1",
        ],
      });
      const [bytes] = await Promise.all([buffer(run.stdout), run.done]);
      return new StillRaster(new Yuv420Frame(media.width, media.height, bytes));
    });
    decoded.catch(() => this.#frames.delete(key));
    return untilAborted(this.#frames.set(key, decoded), signal);
  }

  /** A checkerboard of this size, and the same picture as a raw yuv420p file (a clip's repeated background). */
  checkerboard(width: number, height: number): { raster: StillRaster; file: Promise<string> } {
    const key = `${width}x${height}`;
    const cached = this.#checkerboards.get(key);
    if (cached) return cached;
    const frame = checkerboard(width, height);
    const file = path.join(this.#dir, `checkerboard-${key}.yuv`);
    const written = mkdir(this.#dir, { recursive: true })
      .then(() => writeFile(file, frame.bytes))
      .then(() => file);
    written.catch(() => this.#checkerboards.delete(key));
    return this.#checkerboards.set(key, { raster: new StillRaster(frame), file: written });
  }
}
