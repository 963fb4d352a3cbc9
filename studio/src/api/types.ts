// The API's types, from the same TypeBox schemas the API validates with (type-only: nothing of TypeBox is bundled).
export type { ErrorBody } from "@caption/shared/api/error";
export type { Job, JobList, JobStatus, JobSummary } from "@caption/shared/api/job";
export type { JobEvent } from "@caption/shared/api/job-event";
export type { Preset, PresetId } from "@caption/shared/api/preset";
export type { PreviewRequest } from "@caption/shared/api/preview";
export type { QualityReport, QualityWord } from "@caption/shared/api/quality-report";
export type { EditedWord, RenderRequest } from "@caption/shared/api/render-request";
export type { Style } from "@caption/shared/api/style";
export type { SubmissionRequest, SubmissionResponse } from "@caption/shared/api/submission";
export type { Transcript, Word } from "@caption/shared/api/transcript";
export type { Upload } from "@caption/shared/api/upload";
export type { Usage } from "@caption/shared/api/usage";
