import { Type, type Static } from "@sinclair/typebox";
import { JOB_STATUSES } from "./job.ts";
import { LiteralUnion } from "./style.ts";

/** The `data` of every event on GET /v1/jobs/{id}/events (`event: status` or `event: progress`). */
export const JobEventSchema = Type.Object(
  {
    job_id: Type.String(),
    status: LiteralUnion(JOB_STATUSES),
    progress: Type.Number({ minimum: 0, maximum: 100 }),
    at: Type.String({ format: "date-time", description: "When the change was committed" }),
  },
  { additionalProperties: false, $id: "JobEvent" },
);
export type JobEvent = Static<typeof JobEventSchema>;
