import { Type, type Static } from "@sinclair/typebox";

/** One catalogue of queue names with typed payloads, shared by the API (producer) and the worker. */
export const QUEUES = {
  captionJob: "caption-job",
  expireFiles: "expire-files",
} as const;

export const CaptionJobPayloadSchema = Type.Object(
  {
    job_id: Type.String(),
    /** W3C trace context of the submitting request, so the worker's spans join its trace. */
    traceparent: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);
export type CaptionJobPayload = Static<typeof CaptionJobPayloadSchema>;

export const ExpireFilesPayloadSchema = Type.Object({}, { additionalProperties: false });
export type ExpireFilesPayload = Static<typeof ExpireFilesPayloadSchema>;

/** pg-boss lives in the same database, in its own schema. */
export const PGBOSS_SCHEMA = "pgboss";
