import { Type, type Static } from "@sinclair/typebox";
import { LiteralUnion, Nullable } from "./style.ts";
import { SUBTITLE_PROFILE_IDS } from "./subtitle-profile.ts";
import type { Word } from "./transcript.ts";

/** A word whose engine confidence is below this is flagged `low_confidence` (see docs/quality-report.md). */
export const LOW_CONFIDENCE_THRESHOLD = 0.5;

export const QUALITY_RULES = ["max_chars_per_line", "max_lines", "reading_speed", "min_duration", "max_duration", "min_gap", "gap_not_closed", "early_start", "late_end"] as const;
export const WORD_FLAGS = ["low_confidence", "no_speech", "vocabulary"] as const;

/** The job's summary of its quality report (GET /v1/jobs/{id}); null until the job completes. */
export const QualitySummarySchema = Type.Object(
  {
    profile: LiteralUnion(SUBTITLE_PROFILE_IDS),
    cues: Type.Integer({ minimum: 0, description: "Cues in the subtitle files" }),
    cues_breaking_rules: Type.Integer({ minimum: 0, description: "Cues that break a rule of the profile: only where no layout of the words could keep it" }),
    low_confidence_words: Type.Integer({ minimum: 0, description: "Words the engine was less sure of than the documented threshold" }),
  },
  { additionalProperties: false, $id: "QualitySummary" },
);
export type QualitySummary = Static<typeof QualitySummarySchema>;

export const RuleBreakSchema = Type.Object(
  {
    rule: LiteralUnion(QUALITY_RULES),
    unit: LiteralUnion(["characters", "lines", "characters_per_second", "words_per_minute", "seconds"] as const),
    limit: Type.Number(),
    value: Type.Number(),
    excess: Type.Number({ minimum: 0, description: "How far the value misses the limit" }),
  },
  { additionalProperties: false },
);

/** The file behind `subtitles.quality_url`. */
export const QualityReportSchema = Type.Object(
  {
    job_id: Type.String(),
    profile: LiteralUnion(SUBTITLE_PROFILE_IDS),
    limits: Type.Object(
      {
        max_chars_per_line: Type.Integer(),
        max_lines: Type.Integer(),
        max_chars_per_second: Nullable(Type.Number()),
        max_words_per_minute: Nullable(Type.Number()),
        min_duration_seconds: Type.Number(),
        max_duration_seconds: Type.Number(),
        min_gap_seconds: Type.Number({ description: "Two frames of the video" }),
        close_gaps_below_seconds: Type.Number(),
        max_linger_seconds: Type.Number(),
        frame_rate: Type.Number(),
      },
      { additionalProperties: false },
    ),
    engine: Type.Object(
      {
        name: Type.String(),
        model: Type.String(),
        confidence: Nullable(Type.String({ description: "What a word's confidence is for this engine; null where it gives none" })),
        low_confidence_threshold: Type.Number(),
      },
      { additionalProperties: false },
    ),
    vocabulary: Type.Object(
      {
        terms: Type.Array(Type.String()),
        biasing: Type.String({ description: "How the engine was biased towards the terms, or why it was not" }),
        not_biased: Type.Array(Type.Object({ term: Type.String(), reason: Type.String() }, { additionalProperties: false }), {
          description: "Terms left to the post-pass alone",
        }),
      },
      { additionalProperties: false },
    ),
    summary: QualitySummarySchema,
    speech: Nullable(
      Type.Array(Type.Object({ start: Type.Number(), end: Type.Number() }, { additionalProperties: false }), {
        description: "The stretches the voice-activity detector called speech (seconds); null where unknown (a render of a job completed before reports)",
      }),
    ),
    cues: Type.Array(
      Type.Object(
        {
          index: Type.Integer({ minimum: 1, description: "The cue's number in the SRT" }),
          start: Type.Number(),
          end: Type.Number(),
          text: Type.String(),
          breaks: Type.Array(RuleBreakSchema, { description: "Rules this cue breaks; only where no layout could keep them" }),
        },
        { additionalProperties: false },
      ),
    ),
    words: Type.Array(
      Type.Object(
        {
          text: Type.String(),
          start: Type.Number(),
          end: Type.Number(),
          confidence: Nullable(Type.Number({ minimum: 0, maximum: 1 })),
          flags: Type.Array(LiteralUnion(WORD_FLAGS)),
          original: Type.Optional(Type.String({ description: "What was recognised before a vocabulary term, replacement or mask changed it" })),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false, $id: "QualityReport" },
);
export type QualityReport = Static<typeof QualityReportSchema>;
export type QualityWord = QualityReport["words"][number];

/** A word as a job ends with it, and what changed it on the way (vocabulary, replacements, masking). */
export interface AnnotatedWord extends Word {
  /** The recognised text it replaced. */
  original?: string;
  /** Part of a vocabulary term that matched. */
  vocabulary?: boolean;
}
