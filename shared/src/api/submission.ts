import { Type, type Static } from "@sinclair/typebox";
import { OutputSchema } from "./output.ts";
import { PresetIdSchema } from "./preset.ts";
import { exactlyOneOf, StyleSchema } from "./style.ts";
import { ProfanitySchema, ReplacementsSchema, VocabularySchema } from "./custom-words.ts";
import { SubtitleOptionsSchema } from "./subtitle-profile.ts";
import { UPLOAD_ID_PATTERN } from "./upload.ts";

export const MAX_VIDEO_SECONDS = 600;

export const SubmissionRequestSchema = Type.Object(
  {
    video_url: Type.Optional(
      Type.String({
        format: "uri",
        maxLength: 4096,
        pattern: "^[hH][tT][tT][pP][sS]://[^/?#@\\s]",
        description: "Direct HTTPS URL to an MP4, MOV or WebM file; redirects are rejected. Exactly one of video_url and upload_id",
      }),
    ),
    upload_id: Type.Optional(Type.String({ pattern: UPLOAD_ID_PATTERN, description: "A finished upload of the account (POST /v1/uploads). Exactly one of video_url and upload_id" })),
    preset: Type.Optional(PresetIdSchema),
    language: Type.Optional(Type.String({ pattern: "^[a-z]{2,3}$", description: "Source language; omitted means automatic detection" })),
    style: Type.Optional(StyleSchema),
    max_duration_seconds: Type.Optional(
      // The default is stated in words, not as `default`: client generators turn a `default` into a required field.
      Type.Integer({ minimum: 1, maximum: MAX_VIDEO_SECONDS, description: `Caps the credit reserved; a longer video fails with DURATION_LIMIT_EXCEEDED. Omitted: ${MAX_VIDEO_SECONDS}` }),
    ),
    subtitles: Type.Optional(SubtitleOptionsSchema),
    vocabulary: Type.Optional(VocabularySchema),
    replacements: Type.Optional(ReplacementsSchema),
    profanity: Type.Optional(ProfanitySchema),
    output: Type.Optional(OutputSchema),
  },
  // `oneOf` is for the OpenAPI document and its clients; the server enforces it in code, naming the fields.
  { additionalProperties: false, $id: "SubmissionRequest", oneOf: exactlyOneOf("video_url", "upload_id") },
);

/** A request that names its source exactly once, or the message that says what is wrong. */
export function sourceProblem(request: SubmissionRequest): string | null {
  if (request.video_url !== undefined && request.upload_id !== undefined) return "give either video_url or upload_id, not both";
  if (request.video_url === undefined && request.upload_id === undefined) return "video_url or upload_id is required";
  return null;
}
export type SubmissionRequest = Static<typeof SubmissionRequestSchema>;

export const SubmissionResponseSchema = Type.Object(
  {
    id: Type.String(),
    status: Type.String(),
    status_url: Type.String({ format: "uri" }),
    replayed: Type.Boolean(),
  },
  { additionalProperties: false, $id: "SubmissionResponse" },
);
export type SubmissionResponse = Static<typeof SubmissionResponseSchema>;
