import type { SubtitleProfile } from "@caption/shared/api/subtitle-profile";
import { lineText, type Cue } from "../../render/cue-builder.ts";
import { toMs } from "../clock-time.ts";

/** The rules a profile sets for one cue, as the quality report names them. */
export const SUBTITLE_RULES = [
  "max_chars_per_line",
  "max_lines",
  "reading_speed",
  "min_duration",
  "max_duration",
  "min_gap",
  "gap_not_closed",
  "early_start",
  "late_end",
] as const;
export type SubtitleRule = (typeof SUBTITLE_RULES)[number];

export type RuleUnit = "characters" | "lines" | "characters_per_second" | "words_per_minute" | "seconds";

/** A rule a cue breaks: the profile's limit, the cue's value, and by how much it misses (always positive). */
export interface RuleBreak {
  rule: SubtitleRule;
  unit: RuleUnit;
  limit: number;
  value: number;
  excess: number;
}

/** A profile's rules in whole milliseconds for a video's frame rate: what the SRT's times are compared with. */
export interface RuleLimits {
  maxCharsPerLine: number;
  maxLines: number;
  maxCharsPerSecond: number | null;
  maxWordsPerMinute: number | null;
  minDurationMs: number;
  maxDurationMs: number;
  minGapMs: number;
  closeGapsBelowMs: number;
  maxLingerMs: number;
}

export function ruleLimits(profile: SubtitleProfile, frameRate: number): RuleLimits {
  // Two frames, rounded up to the millisecond so the gap written in the file is never shorter.
  const fps = Number.isFinite(frameRate) && frameRate > 0 ? frameRate : 25;
  return {
    maxCharsPerLine: profile.maxCharsPerLine,
    maxLines: profile.maxLines,
    maxCharsPerSecond: profile.maxCharsPerSecond,
    maxWordsPerMinute: profile.maxWordsPerMinute,
    minDurationMs: Math.ceil(profile.minDurationSeconds * 1000 - 1e-9),
    maxDurationMs: Math.floor(profile.maxDurationSeconds * 1000 + 1e-9),
    minGapMs: Math.ceil((profile.minGapFrames * 1000) / fps - 1e-9),
    closeGapsBelowMs: Math.round(profile.closeGapsBelowSeconds * 1000),
    maxLingerMs: Math.round(profile.maxLingerSeconds * 1000),
  };
}

/**
 * Characters a reader reads in a cue: its text, spaces and punctuation included, each line break counted as the
 * space it stands for, so the reading speed does not depend on where lines break.
 */
export function cueCharacters(cue: Pick<Cue, "lines">): number {
  return [...cue.lines.map((line) => lineText(line.words)).join(" ")].length;
}

const round2 = (n: number) => Math.round(n * 100) / 100;
const seconds = (ms: number) => ms / 1000;

/** The timing a cue must keep: what its end can be checked against without the lines. */
export interface CueTiming {
  startMs: number;
  endMs: number;
  firstWordStartMs: number;
  lastWordEndMs: number;
  characters: number;
  words: number;
  /** The next cue's start; null for the last cue. */
  nextStartMs: number | null;
}

/** The timing rules a cue breaks (reading speed, durations, gap, early start, late end). */
export function timingRuleBreaks(t: CueTiming, limits: RuleLimits): RuleBreak[] {
  const breaks: RuleBreak[] = [];
  const durationMs = t.endMs - t.startMs;
  const shownSeconds = Math.max(durationMs, 1) / 1000;
  if (limits.maxCharsPerSecond !== null && t.characters * 1000 > limits.maxCharsPerSecond * durationMs) {
    const value = round2(t.characters / shownSeconds);
    breaks.push({ rule: "reading_speed", unit: "characters_per_second", limit: limits.maxCharsPerSecond, value, excess: round2(value - limits.maxCharsPerSecond) });
  }
  if (limits.maxWordsPerMinute !== null && t.words * 60_000 > limits.maxWordsPerMinute * durationMs) {
    const value = round2((t.words * 60) / shownSeconds);
    breaks.push({ rule: "reading_speed", unit: "words_per_minute", limit: limits.maxWordsPerMinute, value, excess: round2(value - limits.maxWordsPerMinute) });
  }
  if (durationMs < limits.minDurationMs) {
    breaks.push({ rule: "min_duration", unit: "seconds", limit: seconds(limits.minDurationMs), value: seconds(durationMs), excess: seconds(limits.minDurationMs - durationMs) });
  }
  if (durationMs > limits.maxDurationMs) {
    breaks.push({ rule: "max_duration", unit: "seconds", limit: seconds(limits.maxDurationMs), value: seconds(durationMs), excess: seconds(durationMs - limits.maxDurationMs) });
  }
  if (t.nextStartMs !== null) {
    const gapMs = t.nextStartMs - t.endMs;
    if (gapMs < limits.minGapMs) {
      breaks.push({ rule: "min_gap", unit: "seconds", limit: seconds(limits.minGapMs), value: seconds(gapMs), excess: seconds(limits.minGapMs - gapMs) });
    } else if (gapMs > limits.minGapMs && gapMs < limits.closeGapsBelowMs) {
      breaks.push({ rule: "gap_not_closed", unit: "seconds", limit: seconds(limits.minGapMs), value: seconds(gapMs), excess: seconds(gapMs - limits.minGapMs) });
    }
  }
  if (t.startMs < t.firstWordStartMs) {
    breaks.push({ rule: "early_start", unit: "seconds", limit: 0, value: seconds(t.firstWordStartMs - t.startMs), excess: seconds(t.firstWordStartMs - t.startMs) });
  }
  const lingerMs = t.endMs - t.lastWordEndMs;
  if (lingerMs > limits.maxLingerMs) {
    breaks.push({ rule: "late_end", unit: "seconds", limit: seconds(limits.maxLingerMs), value: seconds(lingerMs), excess: seconds(lingerMs - limits.maxLingerMs) });
  }
  return breaks;
}

/** The layout rules a cue breaks: lines too long, too many lines. */
export function layoutRuleBreaks(cue: Pick<Cue, "lines">, limits: RuleLimits): RuleBreak[] {
  const breaks: RuleBreak[] = [];
  const longest = Math.max(0, ...cue.lines.map((line) => [...lineText(line.words)].length));
  if (longest > limits.maxCharsPerLine) {
    breaks.push({ rule: "max_chars_per_line", unit: "characters", limit: limits.maxCharsPerLine, value: longest, excess: longest - limits.maxCharsPerLine });
  }
  if (cue.lines.length > limits.maxLines) {
    breaks.push({ rule: "max_lines", unit: "lines", limit: limits.maxLines, value: cue.lines.length, excess: cue.lines.length - limits.maxLines });
  }
  return breaks;
}

/** Every rule a cue breaks, its times read as the files write them (whole milliseconds). */
export function cueRuleBreaks(cue: Cue, nextStart: number | null, limits: RuleLimits): RuleBreak[] {
  const words = cue.lines.flatMap((line) => line.words);
  const timing: CueTiming = {
    startMs: toMs(cue.start),
    endMs: toMs(cue.end),
    firstWordStartMs: Math.min(...words.map((w) => toMs(w.start))),
    lastWordEndMs: Math.max(...words.map((w) => toMs(w.end))),
    characters: cueCharacters(cue),
    words: words.length,
    nextStartMs: nextStart === null ? null : toMs(nextStart),
  };
  return [...layoutRuleBreaks(cue, limits), ...timingRuleBreaks(timing, limits)];
}

/** The rules each cue of a sequence breaks, in order. */
export function cuesRuleBreaks(cues: readonly Cue[], limits: RuleLimits): RuleBreak[][] {
  return cues.map((cue, i) => cueRuleBreaks(cue, cues[i + 1]?.start ?? null, limits));
}
