import { Type } from "@sinclair/typebox";
import { JOB_ID_PATTERN, WEBHOOK_ENDPOINT_ID_PATTERN } from "@caption/shared/api/ids";
import { LiteralUnion } from "@caption/shared/api/style";
import { UPLOAD_ID_PATTERN } from "@caption/shared/api/upload";
import { SERVED_FILES } from "@caption/shared/storage/result-files";
import type { PathParam } from "./route-spec.ts";

// The shapes of the routes' path parameters: what the service issues, and nothing else reaches a handler.

const id = (pattern: string, names: string, description: string): PathParam => ({ names, schema: Type.String({ pattern, description }) });

export const jobIdParam = id(JOB_ID_PATTERN, "job", "The job's id: job_ and a ULID.");
export const webhookEndpointIdParam = id(WEBHOOK_ENDPOINT_ID_PATTERN, "webhook endpoint", "The webhook endpoint's id: we_ and a ULID.");
export const uploadIdParam = id(UPLOAD_ID_PATTERN, "upload", "The upload's id: upl_ and a ULID.");

/** A result file's job and name: the job's id and one of the names a job's files have. */
export const resultFileParams = {
  job: { ...jobIdParam, names: "file" },
  file: { names: "file", schema: LiteralUnion(SERVED_FILES.map((file) => file.name), { description: "The result file." }) },
};
