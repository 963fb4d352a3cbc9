import { Type, type Static } from "@sinclair/typebox";
import { OutputSchema } from "./output.ts";
import { PresetIdSchema } from "./preset.ts";
import { StyleSchema } from "./style.ts";
import { SubtitleOptionsSchema } from "./subtitle-profile.ts";

/** Most words a render request may carry: far above what 600 s of speech holds (~2 500). */
export const MAX_EDITED_WORDS = 20_000;
const MAX_WORD_TEXT_LENGTH = 100;
/**
 * Largest render request body, in bytes. Measured (`npm run bench:render-body`): 20 000 words of real
 * text weigh 1.3 to 2.8 MiB, the heaviest being Cyrillic with every character escaped as \uXXXX and the
 * JSON indented; 4 MiB leaves 45 % above that. The schema's extreme (20 000 words of 100 escaped
 * characters, 13 MB) is legal word by word but no video's words need it.
 */
export const MAX_RENDER_BODY_BYTES = 4 * 1024 * 1024;

// C0 and C1 control characters (tab and newline included): a word is one line of caption text.
const NO_CONTROL_CHARACTERS = "^[^\\u0000-\\u001f\\u007f-\\u009f]*$";

export const EditedWordSchema = Type.Object(
  {
    text: Type.String({ minLength: 1, maxLength: MAX_WORD_TEXT_LENGTH, pattern: NO_CONTROL_CHARACTERS }),
    start: Type.Number({ minimum: 0, description: "seconds from the start of the video; not before the previous word's start" }),
    end: Type.Number({ minimum: 0, description: "seconds from the start of the video; at least start, at most the video's duration" }),
  },
  { additionalProperties: false, $id: "EditedWord" },
);
export type EditedWord = Static<typeof EditedWordSchema>;

/**
 * Body of POST /v1/jobs/{id}/renders. Every field is optional: an omitted one is the source job's
 * (its preset, the style it was submitted with, its transcript's words), but for `output`, which is
 * `burned` unless given.
 */
export const RenderRequestSchema = Type.Object(
  {
    preset: Type.Optional(PresetIdSchema),
    style: Type.Optional(StyleSchema),
    words: Type.Optional(
      Type.Array(EditedWordSchema, {
        minItems: 1,
        maxItems: MAX_EDITED_WORDS,
        description: "The words to caption, in time order; they replace the source transcript's words in the picture and in every file",
      }),
    ),
    subtitles: Type.Optional(SubtitleOptionsSchema),
    output: Type.Optional(OutputSchema),
  },
  { additionalProperties: false, $id: "RenderRequest" },
);
export type RenderRequest = Static<typeof RenderRequestSchema>;

/**
 * The render request with the words themselves left unchecked (the array's own limits still hold).
 * The API checks the rest of a body with it and then each word in turn, its shape with its times, once
 * the source's duration is known, so a 400 names the first bad word whatever rule that word breaks.
 */
export const RenderRequestOuterSchema = Type.Object(
  {
    ...RenderRequestSchema.properties,
    words: Type.Optional(Type.Array(Type.Unknown(), { minItems: 1, maxItems: MAX_EDITED_WORDS })),
  },
  { additionalProperties: false },
);
export type RenderRequestOuter = Static<typeof RenderRequestOuterSchema>;
