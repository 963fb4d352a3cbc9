import { mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { buffer } from "node:stream/consumers";
import type { Logger } from "pino";
import { Value } from "@sinclair/typebox/value";
import type { Db } from "@caption/shared/db/database";
import { loadJob } from "../db/job-repository.ts";
import { HDR_TO_SDR_FILTER, isHdr } from "../media/dynamic-range.ts";
import { streamFfmpegOutput } from "../media/ffmpeg.ts";
import { seekPoint } from "../media/frame-grabs.ts";
import { MediaInfoSchema, type MediaInfo } from "../media/media-info.ts";
import { sourceInputArgs } from "../media/source-input.ts";
import { StillRaster } from "../render/still-raster.ts";
import { checkerboard, Yuv420Frame } from "../render/yuv-frame.ts";
import { SOURCE_VIDEO_FILE, StoredFileMissing, type ResultStore } from "../storage/result-store.ts";

/** A preview the worker cannot draw for a reason of the request's (the API maps the code as for its own). */
export class PreviewRefused extends Error {
  readonly code: "NOT_FOUND" | "SOURCE_NOT_RENDERABLE";
  constructor(code: "NOT_FOUND" | "SOURCE_NOT_RENDERABLE", message: string) {
    super(message);
    this.name = "PreviewRefused";
    this.code = code;
  }
}

/** Removes a cached file once it has been written (nothing when writing it failed). */
const removeWhenWritten = (file: Promise<string>) => void file.then((done) => rm(done, { force: true })).catch(() => undefined);

/** A completed job whose video a preview is drawn over. */
export interface BackgroundVideo {
  jobId: string;
  media: MediaInfo;
}

// A style picker asks for many previews over the same frame: the source videos and decoded frames last
// asked for are kept, a few of each.
// (A 1080p frame ready for stills is about 15 MB.)
const KEPT_VIDEOS = 4;
const KEPT_FRAMES = 6;
const KEPT_CHECKERBOARDS = 4;

/** Least recently used first; `get` moves an entry last, `set` drops the oldest beyond `limit`. */
class Recent<V> {
  readonly #entries = new Map<string, V>();
  readonly #limit: number;
  readonly #onDrop: (key: string, value: V) => void;
  constructor(limit: number, onDrop: (key: string, value: V) => void = () => undefined) {
    this.#limit = limit;
    this.#onDrop = onDrop;
  }
  get(key: string): V | undefined {
    const value = this.#entries.get(key);
    if (value !== undefined) {
      this.#entries.delete(key);
      this.#entries.set(key, value);
    }
    return value;
  }
  set(key: string, value: V): V {
    this.#entries.set(key, value);
    for (const [oldest, dropped] of this.#entries) {
      if (this.#entries.size <= this.#limit) break;
      this.#entries.delete(oldest);
      this.#onDrop(oldest, dropped);
    }
    return value;
  }
  delete(key: string): void {
    this.#entries.delete(key);
  }
}

/**
 * What previews are drawn over: checkerboards, and the frames of the account's completed jobs (their stored
 * source videos, copied into the worker's scratch space once and kept while they are in use). A copy that
 * outlives a preview's deadline still completes, so the client's retry finds it.
 */
export class PreviewBackgrounds {
  readonly #db: Db;
  readonly #store: ResultStore;
  readonly #dir: string;
  readonly #ffmpegPath: string;
  readonly #logger: Logger;
  readonly #videos: Recent<Promise<string>>;
  readonly #frames = new Recent<Promise<StillRaster>>(KEPT_FRAMES);
  readonly #checkerboards = new Recent<{ raster: StillRaster; file: Promise<string> }>(KEPT_CHECKERBOARDS, (_, { file }) => removeWhenWritten(file));

  constructor(deps: { db: Db; store: ResultStore; dir: string; ffmpegPath: string; logger: Logger }) {
    this.#db = deps.db;
    this.#store = deps.store;
    this.#dir = deps.dir;
    this.#ffmpegPath = deps.ffmpegPath;
    this.#logger = deps.logger;
    this.#videos = new Recent(KEPT_VIDEOS, (_, file) => removeWhenWritten(file));
  }

  /** The account's job `jobId`, if it is completed and keeps its files; else the refusal, as the API words it. */
  async video(accountId: string, jobId: string, now = new Date()): Promise<BackgroundVideo> {
    const job = await loadJob(this.#db, jobId);
    if (!job || job.account_id !== accountId) throw new PreviewRefused("NOT_FOUND", "background.job_id: job not found");
    const kept = job.status === "completed" && job.files_deleted_at === null && job.expires_at !== null && job.expires_at > now && job.source_video_key !== null;
    if (!kept || !Value.Check(MediaInfoSchema, job.media)) {
      throw new PreviewRefused("SOURCE_NOT_RENDERABLE", `background.job_id: job ${jobId} is not a completed job whose files are kept`);
    }
    return { jobId, media: job.media };
  }

  /** The job's source video in the scratch space. */
  sourcePath(background: BackgroundVideo): Promise<string> {
    const cached = this.#videos.get(background.jobId);
    if (cached) return cached;
    const file = path.join(this.#dir, `${background.jobId}.source`);
    const copy = mkdir(this.#dir, { recursive: true })
      .then(() => this.#store.get(background.jobId, SOURCE_VIDEO_FILE.name, file))
      .then(() => file);
    copy.catch((error: unknown) => {
      this.#videos.delete(background.jobId);
      this.#logger.warn({ job_id: background.jobId, err: error }, "background video could not be copied");
    });
    return this.#videos.set(
      background.jobId,
      copy.catch((error: unknown) => {
        throw error instanceof StoredFileMissing ? new PreviewRefused("SOURCE_NOT_RENDERABLE", `background.job_id: the files of job ${background.jobId} are gone`) : error;
      }),
    );
  }

  /** Frame `n` (from 0) of the job's video, decoded as its render decoded it (tone-mapped when HDR). */
  frame(background: BackgroundVideo, n: number, signal?: AbortSignal): Promise<StillRaster> {
    const key = `${background.jobId}#${n}`;
    const cached = this.#frames.get(key);
    if (cached) return cached;
    const { media } = background;
    const decoded = this.sourcePath(background).then(async (file) => {
      const run = streamFfmpegOutput({
        binary: this.#ffmpegPath,
        signal,
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
    return this.#frames.set(key, decoded);
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
