import type { PreviewRequest } from "../api/preview.ts";
import { MAX_PREVIEW_CLIP_SECONDS } from "../api/preview.ts";
import type { Word } from "../api/transcript.ts";

// What a preview shows, in time: the same for the API, which checks `at` and the clip against it, and the
// worker, which draws it.

/** The words of a preview without any: the sentence of the README's contact sheet. */
export const DEFAULT_PREVIEW_TEXT = "Watch these captions follow every single word you speak out loud";
const WORD_SECONDS = 0.4;
const WORD_GAP_SECONDS = 0.05;
/** A still without `at` shows the middle word this far through, when pops, floats and fades have settled. */
const DEFAULT_STILL_FRACTION = 0.8;
/** Captions stay up after the last word (the cue builder's linger); a timeline without a video runs a second past it. */
const TAIL_SECONDS = 1;
/** The frame rate of a preview without a background video. */
export const PREVIEW_FRAME_RATE = 30;

const round = (seconds: number) => Math.round(seconds * 1000) / 1000;

/** Text timed at a steady pace from 0 s: 0.4 s a word, 0.05 s between words. */
export function wordsOfText(text: string): Word[] {
  return text
    .split(/\s+/u)
    .filter((word) => word.length > 0)
    .map((word, i) => {
      const start = round(i * (WORD_SECONDS + WORD_GAP_SECONDS));
      return { text: word, start, end: round(start + WORD_SECONDS) };
    });
}

/** The request's words: its own, or its text (or the sample sentence) timed. */
export function previewWords(request: Pick<PreviewRequest, "text" | "words">): Word[] {
  return request.words ? request.words.map((w) => ({ text: w.text, start: w.start, end: w.end })) : wordsOfText(request.text ?? DEFAULT_PREVIEW_TEXT);
}

/** How long the captions' timeline runs: the background video's duration, else a second past the last word. */
export function timelineSeconds(words: readonly Word[], backgroundSeconds: number | undefined): number {
  return backgroundSeconds ?? round(Math.max(0, ...words.map((w) => w.end)) + TAIL_SECONDS);
}

/** The instant a still shows: the request's, else late in the middle word. */
export function stillInstant(words: readonly Word[], at: number | undefined): number {
  if (at !== undefined) return at;
  const middle = words[Math.floor((words.length - 1) / 2)]!;
  return round(middle.start + DEFAULT_STILL_FRACTION * (middle.end - middle.start));
}

/** A clip's window: from `at` (0) for `duration`, or until the last word has ended, at most 5 s. */
export function clipWindow(words: readonly Word[], request: Pick<PreviewRequest, "at" | "duration">): { start: number; seconds: number } {
  const start = request.at ?? 0;
  const lastEnd = Math.max(...words.map((w) => w.end));
  return { start, seconds: request.duration ?? Math.min(MAX_PREVIEW_CLIP_SECONDS, Math.max(lastEnd - start, 1 / PREVIEW_FRAME_RATE)) };
}
