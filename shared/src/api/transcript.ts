import { Type, type Static } from "@sinclair/typebox";

export const WordSchema = Type.Object(
  {
    text: Type.String(),
    start: Type.Number({ minimum: 0, description: "seconds from the start of the video" }),
    end: Type.Number({ minimum: 0, description: "seconds from the start of the video" }),
    confidence: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
  },
  { additionalProperties: false, $id: "TranscriptWord" },
);
export type Word = Static<typeof WordSchema>;

export const SegmentSchema = Type.Object(
  { start: Type.Number({ minimum: 0 }), end: Type.Number({ minimum: 0 }), text: Type.String() },
  { additionalProperties: false, description: "A stretch of speech found by voice activity detection" },
);
export type Segment = Static<typeof SegmentSchema>;

export const TranscriptSchema = Type.Object(
  {
    job_id: Type.String(),
    language: Type.String(),
    duration: Type.Number({ minimum: 0, description: "seconds" }),
    engine: Type.String(),
    model: Type.String(),
    words: Type.Array(WordSchema),
    segments: Type.Array(SegmentSchema),
    preset: Type.String(),
    style: Type.Unknown({ description: "The resolved style the video was rendered with" }),
  },
  { additionalProperties: false, $id: "Transcript" },
);
export type Transcript = Static<typeof TranscriptSchema>;
