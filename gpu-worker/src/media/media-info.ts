import { Type, type Static } from "@sinclair/typebox";

/** What inspection learned about a downloaded video; the pipeline stores it on the job. */
export const MediaInfoSchema = Type.Object(
  {
    /** ffprobe's format_name, e.g. "mov,mp4,m4a,3gp,3g2,mj2" or "matroska,webm". */
    formatName: Type.String(),
    durationSeconds: Type.Number({ minimum: 0 }),
    /** Display size: after rotation metadata, as ffmpeg's decoder hands frames to filters. */
    width: Type.Integer({ minimum: 1 }),
    height: Type.Integer({ minimum: 1 }),
    frameRate: Type.Number({ exclusiveMinimum: 0 }),
    videoCodec: Type.String(),
    audioCodec: Type.Union([Type.String(), Type.Null()]),
    hasAudio: Type.Boolean(),
    sizeBytes: Type.Integer({ minimum: 0 }),
  },
  { additionalProperties: false },
);
export type MediaInfo = Static<typeof MediaInfoSchema>;
