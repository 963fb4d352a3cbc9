import { Type, type Static } from "@sinclair/typebox";
import { EditedWordSchema } from "./render-request.ts";
import { PresetIdSchema } from "./preset.ts";
import { exactlyOneOf, LiteralUnion, StyleSchema } from "./style.ts";
import { UPLOAD_ID_PATTERN } from "./upload.ts";

export const PREVIEW_FORMATS = ["png", "webp", "mp4"] as const;
export type PreviewFormat = (typeof PREVIEW_FORMATS)[number];
/** The Content-Type of each format's answer. */
export const PREVIEW_CONTENT_TYPES: Readonly<Record<PreviewFormat, string>> = { png: "image/png", webp: "image/webp", mp4: "video/mp4" };

export const MAX_PREVIEW_TEXT_LENGTH = 500;
export const MAX_PREVIEW_WORDS = 100;
export const MAX_PREVIEW_CLIP_SECONDS = 5;
/** A preview's frame, as the jobs' (spec: up to 1920 × 1080 either way). */
export const MAX_PREVIEW_LONG_SIDE = 1920;
export const MAX_PREVIEW_SHORT_SIDE = 1080;

// Text may break lines and use tabs (they part words); other control characters are refused.
const TEXT_PATTERN = "^[^\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f]*$";
const Side = Type.Integer({ minimum: 1, maximum: MAX_PREVIEW_LONG_SIDE, description: `Pixels; the frame is at most ${MAX_PREVIEW_LONG_SIDE} × ${MAX_PREVIEW_SHORT_SIDE} either way, and even for mp4` });

/** Body of POST /v1/previews. */
export const PreviewRequestSchema = Type.Object(
  {
    preset: PresetIdSchema,
    style: Type.Optional(StyleSchema),
    text: Type.Optional(
      Type.String({ minLength: 1, maxLength: MAX_PREVIEW_TEXT_LENGTH, pattern: TEXT_PATTERN, description: "Words to caption, timed by the service: 0.4 s each, 0.05 s apart, from 0 s. Omitted with words: a sample sentence" }),
    ),
    words: Type.Optional(Type.Array(EditedWordSchema, { minItems: 1, maxItems: MAX_PREVIEW_WORDS, description: "Timed words to caption, in time order (instead of text)" })),
    width: Side,
    height: Side,
    at: Type.Optional(
      Type.Number({ minimum: 0, description: "png/webp: the instant shown, between the first word's start and the last word's end (omitted: late in the middle word). mp4: where the clip starts (omitted: 0)" }),
    ),
    duration: Type.Optional(Type.Number({ minimum: 0.1, maximum: MAX_PREVIEW_CLIP_SECONDS, description: `mp4 only: seconds of clip (omitted: until the last word has ended, at most ${MAX_PREVIEW_CLIP_SECONDS})` })),
    format: LiteralUnion(PREVIEW_FORMATS, { description: "png or webp: a still; mp4: a clip of the animation" }),
    background: Type.Optional(
      Type.Object(
        {
          job_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: "A completed job of the account whose files are still kept; its size is the preview's. Exactly one of job_id and upload_id" })),
          upload_id: Type.Optional(
            Type.String({ pattern: UPLOAD_ID_PATTERN, description: "A finished upload of the account, not yet expired (POST /v1/uploads); its size is the preview's. Exactly one of job_id and upload_id" }),
          ),
          at: Type.Number({ minimum: 0, description: "The instant of that video under the captions (a clip's first frame), before its end" }),
        },
        // `oneOf` is for the OpenAPI document and its clients; the server enforces it in code (backgroundSourceProblem).
        { additionalProperties: false, description: "Omitted: a neutral checkerboard", oneOf: exactlyOneOf("job_id", "upload_id") },
      ),
    ),
  },
  { additionalProperties: false, $id: "PreviewRequest" },
);
export type PreviewRequest = Static<typeof PreviewRequestSchema>;

/** A background that names its video exactly once, or the message that says what is wrong. */
export function backgroundSourceProblem(background: NonNullable<PreviewRequest["background"]>): string | null {
  if (background.job_id !== undefined && background.upload_id !== undefined) return "background: give either job_id or upload_id, not both";
  if (background.job_id === undefined && background.upload_id === undefined) return "background.job_id or background.upload_id is required";
  return null;
}
