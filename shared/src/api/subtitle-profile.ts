import { Type, type Static } from "@sinclair/typebox";
import { LiteralUnion } from "./style.ts";

/**
 * The rules the subtitle files (SRT, WebVTT, ASS) are laid out by; the burned-in picture follows its preset.
 * Sources and the reasoning behind each number are in docs/subtitles.md.
 */
export interface SubtitleProfile {
  /** Characters a line may hold, spaces and punctuation included. */
  maxCharsPerLine: number;
  maxLines: number;
  /** Reading speed: characters per second of display (spaces and punctuation counted, a line break as a space) ... */
  maxCharsPerSecond: number | null;
  /** ... or words per minute of display. */
  maxWordsPerMinute: number | null;
  minDurationSeconds: number;
  maxDurationSeconds: number;
  /** The least gap between two cues, in frames of the video. */
  minGapFrames: number;
  /** A gap shorter than this is closed to `minGapFrames`. */
  closeGapsBelowSeconds: number;
  /** A cue leaves the screen at most this long after its last word ends (and never shows before its first starts). */
  maxLingerSeconds: number;
}

export const SUBTITLE_PROFILE_IDS = ["netflix", "bbc", "vertical"] as const;
export type SubtitleProfileId = (typeof SUBTITLE_PROFILE_IDS)[number];
export const DEFAULT_SUBTITLE_PROFILE: SubtitleProfileId = "netflix";

// Netflix Timed Text Style Guide (General Requirements, English (USA) Timed Text Style Guide).
const NETFLIX: SubtitleProfile = {
  maxCharsPerLine: 42,
  maxLines: 2,
  maxCharsPerSecond: 20,
  maxWordsPerMinute: null,
  minDurationSeconds: 5 / 6,
  maxDurationSeconds: 7,
  minGapFrames: 2,
  closeGapsBelowSeconds: 0.5,
  maxLingerSeconds: 0.5,
};

export const SUBTITLE_PROFILES: Readonly<Record<SubtitleProfileId, SubtitleProfile>> = {
  netflix: NETFLIX,
  // BBC Subtitle Guidelines: 37 characters, two lines, 160-180 words per minute (the upper figure is the limit).
  // The guidelines set no figure for the shortest or longest cue or the gap: Netflix's are used.
  bbc: { ...NETFLIX, maxCharsPerLine: 37, maxCharsPerSecond: null, maxWordsPerMinute: 180 },
  // Portrait video (9:16) is 9/16 as wide as landscape of the same height: 42 x 9/16 = 24 characters, 25 with the
  // wider safe area social players leave; a third line holds what the shorter lines cannot.
  vertical: { ...NETFLIX, maxCharsPerLine: 25, maxLines: 3 },
};

export const SubtitleProfileIdSchema = LiteralUnion(SUBTITLE_PROFILE_IDS, {
  description: "Rules the SRT, WebVTT and ASS files are laid out by (characters per line, lines, reading speed, durations, gaps); see docs/subtitles.md",
});

/** `subtitles` on a submission or a render request. */
export const SubtitleOptionsSchema = Type.Object(
  { profile: Type.Optional(SubtitleProfileIdSchema) },
  { additionalProperties: false, description: `How the subtitle files are laid out; the burned-in picture follows the preset. Omitted profile: ${DEFAULT_SUBTITLE_PROFILE}` },
);
export type SubtitleOptions = Static<typeof SubtitleOptionsSchema>;
