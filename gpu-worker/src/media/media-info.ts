import { Type, type Static } from "@sinclair/typebox";

/** What inspection learned about a downloaded video; the pipeline stores it on the job. */
export const MediaInfoSchema = Type.Object(
  {
    /** The demuxer every later run of ffmpeg on the file is told to use (from its magic bytes). */
    container: Type.Union([Type.Literal("mov"), Type.Literal("matroska")]),
    /** ffprobe's format_name, e.g. "mov,mp4,m4a,3gp,3g2,mj2" or "matroska,webm". */
    formatName: Type.String(),
    /**
     * How long the video and audio streams run, from their packets: what is decoded, rendered,
     * limited and billed. Every decode of the source is cut at it.
     */
    durationSeconds: Type.Number({ minimum: 0 }),
    /** What the container header claims (null when it claims nothing); informational only. */
    declaredDurationSeconds: Type.Union([Type.Number({ minimum: 0 }), Type.Null()]),
    /** Display size: after rotation metadata, as ffmpeg's decoder hands frames to filters. */
    width: Type.Integer({ minimum: 1 }),
    height: Type.Integer({ minimum: 1 }),
    frameRate: Type.Number({ exclusiveMinimum: 0 }),
    /** Packets of the video stream, counted. */
    videoFrames: Type.Integer({ minimum: 0 }),
    /** ffmpeg stream indexes of the video and audio streams decoded (cover art is never the video). */
    videoStreamIndex: Type.Integer({ minimum: 0 }),
    audioStreamIndex: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]),
    videoCodec: Type.String(),
    /** ffprobe's color_transfer of the video ("bt709", "arib-std-b67" for HLG, "smpte2084" for PQ), null when untagged. */
    colorTransfer: Type.Union([Type.String(), Type.Null()]),
    audioCodec: Type.Union([Type.String(), Type.Null()]),
    hasAudio: Type.Boolean(),
    sizeBytes: Type.Integer({ minimum: 0 }),
  },
  { additionalProperties: false },
);
export type MediaInfo = Static<typeof MediaInfoSchema>;
