import { Type, type Static } from "@sinclair/typebox";
import { LiteralUnion } from "./style.ts";

/** Most terms a submission's vocabulary may hold, and the longest term. */
export const MAX_VOCABULARY_TERMS = 100;
export const MAX_TERM_LENGTH = 50;
/** Most replacements, the longest phrase replaced and the longest replacement. */
export const MAX_REPLACEMENTS = 100;
export const MAX_REPLACEMENT_LENGTH = 100;

// Visible text on one line: at least one non-space character and no C0/C1 control characters.
const ONE_LINE_OF_TEXT = "^(?=.*\\S)[^\\u0000-\\u001f\\u007f-\\u009f]*$";
const NO_CONTROL_CHARACTERS = "^[^\\u0000-\\u001f\\u007f-\\u009f]*$";

export const VocabularySchema = Type.Array(Type.String({ minLength: 1, maxLength: MAX_TERM_LENGTH, pattern: ONE_LINE_OF_TEXT }), {
  maxItems: MAX_VOCABULARY_TERMS,
  description:
    "Terms the speech engine is biased towards (names, brands, jargon), then snapped to where the words recognised sound like them; see docs/vocabulary.md",
});

export const ReplacementsSchema = Type.Record(
  Type.String({ pattern: `^(?=.{1,${MAX_TERM_LENGTH}}$)(?=.*\\S)[^\\u0000-\\u001f\\u007f-\\u009f]*$` }),
  Type.String({ maxLength: MAX_REPLACEMENT_LENGTH, pattern: NO_CONTROL_CHARACTERS }),
  {
    maxProperties: MAX_REPLACEMENTS,
    additionalProperties: false,
    description:
      "Whole words or phrases replaced in the picture, the subtitle files and the transcript, matched regardless of case and written in the case of what they replace; an empty replacement removes the words",
  },
);

export const PROFANITY_MODES = ["keep", "mask"] as const;
export type ProfanityMode = (typeof PROFANITY_MODES)[number];
export const ProfanitySchema = LiteralUnion(PROFANITY_MODES, {
  description: "mask: words of the documented list keep their first letter, the rest becomes asterisks (picture, files and transcript). Omitted: keep",
});

export type Vocabulary = Static<typeof VocabularySchema>;
export type Replacements = Static<typeof ReplacementsSchema>;
