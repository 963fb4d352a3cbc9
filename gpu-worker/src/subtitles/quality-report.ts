import { LOW_CONFIDENCE_THRESHOLD, type AnnotatedWord, type QualityReport, type QualityWord } from "@caption/shared/api/quality-report";
import { SUBTITLE_PROFILES, type SubtitleProfileId } from "@caption/shared/api/subtitle-profile";
import type { Word } from "@caption/shared/api/transcript";
import type { BiasingOutcome } from "../asr/vocabulary/biasing-outcome.ts";
import { lineText } from "../render/cue-builder.ts";
import type { SubtitleLayout } from "./layout/subtitle-layout.ts";
import { ruleLimits } from "./layout/subtitle-rules.ts";

export interface Span {
  start: number;
  end: number;
}

/** What a word's confidence means, by engine; null when its words carry none (hand-edited words, CTC models). */
export function confidenceMeaning(engine: string, words: readonly Word[]): string | null {
  if (!words.some((w) => w.confidence !== undefined)) return null;
  return engine === "pocketsphinx"
    ? "posterior probability of the word in pocketsphinx's recognition lattice (0-1)"
    : "geometric mean of the probabilities the model gave the word's tokens, from sherpa-onnx's ys_log_probs (0-1)";
}

/** A word counts as silence when less than half of it (its midpoint, for an instant) overlaps detected speech. */
export function inSilence(word: Span, speech: readonly Span[]): boolean {
  const length = word.end - word.start;
  if (length <= 0) return !speech.some((s) => s.start <= word.start && word.start <= s.end);
  const overlap = speech.reduce((sum, s) => sum + Math.max(0, Math.min(s.end, word.end) - Math.max(s.start, word.start)), 0);
  return overlap < length / 2;
}

/**
 * The quality report of a job's subtitle files (subtitles.quality_url): each cue with the rules it breaks (the
 * layout breaks one only where no layout could keep it), each word with its engine confidence and flags.
 */
export function qualityReport(input: {
  jobId: string;
  profile: SubtitleProfileId;
  frameRate: number;
  layout: SubtitleLayout;
  words: readonly AnnotatedWord[];
  speech: readonly Span[] | null;
  engine: { name: string; model: string };
  vocabulary: BiasingOutcome;
}): QualityReport {
  const profile = SUBTITLE_PROFILES[input.profile];
  const limits = ruleLimits(profile, input.frameRate);
  const cues = input.layout.cues.map((cue, i) => ({
    index: i + 1,
    start: cue.start,
    end: cue.end,
    text: cue.lines.map((line) => lineText(line.words)).join("\n"),
    breaks: input.layout.breaks[i] ?? [],
  }));
  const words = input.words.map((word): QualityWord => {
    const flags: QualityWord["flags"] = [];
    if (word.confidence !== undefined && word.confidence < LOW_CONFIDENCE_THRESHOLD) flags.push("low_confidence");
    if (input.speech !== null && inSilence(word, input.speech)) flags.push("no_speech");
    if (word.vocabulary) flags.push("vocabulary");
    const original = word.original !== undefined ? { original: word.original } : {};
    return { text: word.text, start: word.start, end: word.end, confidence: word.confidence ?? null, flags, ...original };
  });
  return {
    job_id: input.jobId,
    profile: input.profile,
    limits: {
      max_chars_per_line: limits.maxCharsPerLine,
      max_lines: limits.maxLines,
      max_chars_per_second: limits.maxCharsPerSecond,
      max_words_per_minute: limits.maxWordsPerMinute,
      min_duration_seconds: limits.minDurationMs / 1000,
      max_duration_seconds: limits.maxDurationMs / 1000,
      min_gap_seconds: limits.minGapMs / 1000,
      close_gaps_below_seconds: limits.closeGapsBelowMs / 1000,
      max_linger_seconds: limits.maxLingerMs / 1000,
      frame_rate: input.frameRate,
    },
    engine: { ...input.engine, confidence: confidenceMeaning(input.engine.name, input.words), low_confidence_threshold: LOW_CONFIDENCE_THRESHOLD },
    vocabulary: input.vocabulary,
    summary: {
      profile: input.profile,
      cues: cues.length,
      cues_breaking_rules: cues.filter((cue) => cue.breaks.length > 0).length,
      low_confidence_words: words.filter((word) => word.flags.includes("low_confidence")).length,
    },
    speech: input.speech === null ? null : [...input.speech],
    cues,
    words,
  };
}
