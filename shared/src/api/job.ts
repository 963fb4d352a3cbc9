import { Type, type Static, type TSchema } from "@sinclair/typebox";
import { LiteralUnion } from "./style.ts";

export const JOB_STATUSES = ["queued", "ingesting", "transcribing", "rendering", "completed", "failed", "canceled"] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];
export const TERMINAL_STATUSES: ReadonlySet<JobStatus> = new Set(["completed", "failed", "canceled"]);
export const isTerminal = (status: JobStatus): boolean => TERMINAL_STATUSES.has(status);

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const JobSchema = Type.Object(
  {
    id: Type.String(),
    status: LiteralUnion(JOB_STATUSES),
    progress: Type.Number({ minimum: 0, maximum: 100 }),
    created_at: Type.String({ format: "date-time" }),
    expires_at: Nullable(Type.String({ format: "date-time", description: "When the output files are deleted" })),
    video: Nullable(Type.Object({ url: Type.String({ format: "uri" }), content_type: Type.Literal("video/mp4") }, { additionalProperties: false })),
    subtitles: Type.Object({ srt_url: Nullable(Type.String({ format: "uri" })), transcript_url: Nullable(Type.String({ format: "uri" })) }, { additionalProperties: false }),
    usage: Type.Object({ reserved_seconds: Type.Integer({ minimum: 0 }), billed_seconds: Type.Integer({ minimum: 0 }) }, { additionalProperties: false }),
    error: Nullable(Type.Object({ code: Type.String(), message: Type.String() }, { additionalProperties: false })),
  },
  { additionalProperties: false, $id: "Job" },
);
export type Job = Static<typeof JobSchema>;

export const CancelResponseSchema = Type.Object({ id: Type.String(), status: LiteralUnion(JOB_STATUSES) }, { additionalProperties: false, $id: "CancelResponse" });
export type CancelResponse = Static<typeof CancelResponseSchema>;
