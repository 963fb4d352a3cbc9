import { Type, type Static } from "@sinclair/typebox";
import { OutputSchema } from "./output.ts";
import { LiteralUnion, Nullable } from "./style.ts";
import { QualitySummarySchema } from "./quality-report.ts";
import { PresetIdSchema } from "./preset.ts";

/** A job in one of these is unfinished: it holds one of its account's concurrency slots, and a worker may move it on. */
export const ACTIVE_STATUSES = ["queued", "ingesting", "transcribing", "rendering"] as const;
/** Clients stop polling here; nothing moves a job out of these. */
export const TERMINAL_STATUSES = ["completed", "failed", "canceled"] as const;
export const JOB_STATUSES = [...ACTIVE_STATUSES, ...TERMINAL_STATUSES] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];
const terminal: ReadonlySet<JobStatus> = new Set(TERMINAL_STATUSES);
export const isTerminal = (status: JobStatus): boolean => terminal.has(status);

const Link = (description: string) => Nullable(Type.String({ format: "uri", description }));

/** The job's video and the pictures made from it, once it is completed. */
const VideoResultSchema = Type.Object(
  {
    url: Type.String({ format: "uri" }),
    content_type: Type.Literal("video/mp4"),
    captioned: Type.Boolean({ description: "True: url is the video with the captions burned in. False (output kind overlay): url is the video without captions, as MP4 with its streams copied, to lay the overlay on" }),
    poster_url: Link("JPEG of the frame with the most caption on screen in the first 10 seconds; null for jobs completed before posters were made"),
    preview_strip_url: Link("JPEG of 8 captioned frames side by side, evenly spaced over the video; null for jobs completed before strips were made"),
    overlay_urls: Nullable(
      Type.Object(
        {
          webm_url: Type.String({ format: "uri", description: "VP9 with alpha (yuva420p; alpha lossless, colour lossy), in WebM: plays in Chromium" }),
          mov_url: Type.String({ format: "uri", description: "ProRes 4444 with alpha in QuickTime, one sample per frame: for Premiere, DaVinci Resolve, Final Cut" }),
        },
        { additionalProperties: false, description: "The captions alone on a transparent frame, the video's size, frame rate and length, timed from its first frame; null unless output.kind is overlay or both" },
      ),
    ),
  },
  { additionalProperties: false },
);

export const JobSchema = Type.Object(
  {
    id: Type.String(),
    status: LiteralUnion(JOB_STATUSES),
    progress: Type.Number({ minimum: 0, maximum: 100 }),
    created_at: Type.String({ format: "date-time" }),
    source_job_id: Nullable(Type.String({ description: "The job this one renders again (POST /v1/jobs/{id}/renders); null for a submitted video" })),
    expires_at: Nullable(Type.String({ format: "date-time", description: "When the output files are deleted" })),
    video: Nullable(VideoResultSchema),
    subtitles: Type.Object(
      {
        srt_url: Nullable(Type.String({ format: "uri" })),
        transcript_url: Nullable(Type.String({ format: "uri" })),
        vtt_url: Nullable(Type.String({ format: "uri", description: "WebVTT (text/vtt): the SRT's cues with <hh:mm:ss.mmm> word timing tags" })),
        ass_url: Nullable(Type.String({ format: "uri", description: "ASS (text/x-ssa) in the job's style, for Aegisub, Premiere, DaVinci Resolve" })),
        quality_url: Nullable(Type.String({ format: "uri", description: "The quality report (JSON): rules each cue breaks, each word's confidence and flags" })),
      },
      { additionalProperties: false },
    ),
    output: OutputSchema,
    usage: Type.Object({ reserved_seconds: Type.Integer({ minimum: 0 }), billed_seconds: Type.Integer({ minimum: 0 }) }, { additionalProperties: false }),
    error: Nullable(Type.Object({ code: Type.String(), message: Type.String() }, { additionalProperties: false })),
    quality: Nullable(QualitySummarySchema),
  },
  { additionalProperties: false, $id: "Job" },
);
export type Job = Static<typeof JobSchema>;

export const CancelResponseSchema = Type.Object({ id: Type.String(), status: LiteralUnion(JOB_STATUSES) }, { additionalProperties: false, $id: "CancelResponse" });
export type CancelResponse = Static<typeof CancelResponseSchema>;

/** Jobs a page of GET /v1/jobs holds at most, and by default. */
export const MAX_JOB_PAGE = 100;
export const DEFAULT_JOB_PAGE = 20;

/** Query of GET /v1/jobs (the router reads limit's decimal text as a number before the check). */
export const JobListQuerySchema = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_JOB_PAGE, description: `Jobs on the page, 1 to ${MAX_JOB_PAGE}; omitted: ${DEFAULT_JOB_PAGE}` })),
  cursor: Type.Optional(Type.String({ pattern: "^[A-Za-z0-9_-]{1,200}$", description: "The next_cursor of the page before; omitted: the newest jobs" })),
});
export type JobListQuery = Static<typeof JobListQuerySchema>;

/** One job in a list: what tells it apart, without its links (GET /v1/jobs/{id} has them). */
export const JobSummarySchema = Type.Object(
  {
    id: Type.String(),
    status: LiteralUnion(JOB_STATUSES),
    preset: PresetIdSchema,
    created_at: Type.String({ format: "date-time" }),
    source_job_id: Nullable(Type.String({ description: "The job this one renders again; null for a submitted video" })),
    duration_seconds: Nullable(Type.Number({ minimum: 0, description: "The video's length, once inspected" })),
    billed_seconds: Type.Integer({ minimum: 0 }),
  },
  { additionalProperties: false, $id: "JobSummary" },
);
export type JobSummary = Static<typeof JobSummarySchema>;

export const JobListSchema = Type.Object(
  {
    jobs: Type.Array(JobSummarySchema, { description: "Newest first" }),
    next_cursor: Nullable(Type.String({ description: "Pass it as cursor for the next page; null on the last page" })),
  },
  { additionalProperties: false, $id: "JobList" },
);
export type JobList = Static<typeof JobListSchema>;
