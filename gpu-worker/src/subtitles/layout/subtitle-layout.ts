import type { SubtitleProfile } from "@caption/shared/api/subtitle-profile";
import type { Word } from "@caption/shared/api/transcript";
import { cleanWords, type Cue, type CueWord } from "../../render/cue-builder.ts";
import { toMs } from "../clock-time.ts";
import { breakLines, CLAUSE_END, SENTENCE_END } from "./line-breaks.ts";
import { ruleLimits, timingRuleBreaks, type RuleBreak, type RuleLimits } from "./subtitle-rules.ts";

export interface SubtitleLayoutOptions {
  profile: SubtitleProfile;
  /** Frames per second of the video: the least gap between cues is counted in its frames. */
  frameRate: number;
  /** The video's duration (seconds): no cue runs past it. */
  durationSeconds: number;
}

export interface SubtitleLayout {
  cues: Cue[];
  /** The rules each cue breaks; a cue breaks one only where no layout of the words could keep more rules. */
  breaks: RuleBreak[][];
}

// Secondary costs, among layouts that break equally few rules (see layoutSubtitles).
const PER_CUE = 4;
// A cue ending mid-sentence interrupts the reader more than a line break there does.
const CUE_AFTER_CLAUSE = 10;
const CUE_AFTER_WORD = 20;
const SENTENCE_INSIDE_LINE = 4;
const PAUSE_INSIDE_CUE = 6;
const PAUSE_INSIDE_CUE_MS = 1000;
const LINE_COST_WEIGHT = 0.5;
const EXCESS_WEIGHT = 100;

interface TimedWord {
  text: string;
  startMs: number;
  endMs: number;
  chars: number;
}

interface Cost {
  /** Rules broken, counted once per cue and rule. */
  broken: number;
  /** How far they are broken (relative), then how the text reads. */
  penalty: number;
}

const better = (a: Cost, b: Cost) => a.broken < b.broken || (a.broken === b.broken && a.penalty < b.penalty);

interface CueChoice {
  to: number;
  breaks: number[];
  endMs: number;
  ruleBreaks: RuleBreak[];
  total: Cost;
}

/**
 * Lays words out as subtitle cues that keep the profile's rules. Lines never exceed the profile's length or
 * count (but for a word longer than a line, alone on its own); among those layouts, an exact dynamic programme
 * picks the one breaking the fewest timing rules (reading speed, shortest and longest cue, gaps, how long a
 * cue may stay), then the one breaking them least, then the one that reads best: cues ending at sentences,
 * then clauses, lines split as line-breaks.ts prefers. A cue starts when its first word does and leaves at most
 * the profile's linger after its last word ends; cues never overlap.
 */
export function layoutSubtitles(words: readonly Word[], options: SubtitleLayoutOptions): SubtitleLayout {
  const limits = ruleLimits(options.profile, options.frameRate);
  const videoEndMs = Math.max(0, Math.floor(options.durationSeconds * 1000));
  const timed = cleanWords(words).map((w): TimedWord => {
    const startMs = Math.min(toMs(w.start), videoEndMs);
    return { text: w.text, startMs, endMs: Math.min(Math.max(toMs(w.end), startMs), videoEndMs), chars: [...w.text].length };
  });
  const n = timed.length;
  const best: (CueChoice | null)[] = new Array(n + 1).fill(null);
  const rest = (i: number): Cost => (i === n ? { broken: 0, penalty: 0 } : best[i]!.total);

  for (let from = n - 1; from >= 0; from--) {
    const first = timed[from]!;
    let chars = -1;
    let choice: CueChoice | null = null;
    for (let to = from + 1; to <= n; to++) {
      const word = timed[to - 1]!;
      chars += word.chars + 1;
      const texts = timed.slice(from, to).map((w) => w.text);
      const lines = breakLines(texts, limits.maxCharsPerLine, limits.maxLines);
      // Words that fit no lines fit none with a word more.
      if (lines === null) break;
      const nextStartMs = to < n ? timed[to]!.startMs : null;
      const cueWords = timed.slice(from, to);
      const timing = chooseEnd(first.startMs, cueWords, chars, nextStartMs, videoEndMs, limits);
      const layoutBreaks = overlongLines(texts, lines.breaks, limits);
      const cost: Cost = {
        broken: timing.cost.broken + layoutBreaks.length,
        penalty: timing.cost.penalty + readingCost(cueWords, lines, to === n),
      };
      const after = rest(to);
      const total = { broken: cost.broken + after.broken, penalty: cost.penalty + after.penalty };
      if (choice === null || better(total, choice.total)) {
        choice = { to, breaks: lines.breaks, endMs: timing.endMs, ruleBreaks: [...layoutBreaks, ...timing.breaks], total };
      }
    }
    best[from] = choice;
  }

  const cues: Cue[] = [];
  const breaks: RuleBreak[][] = [];
  for (let from = 0; from < n; ) {
    const choice = best[from]!;
    const cueWords = timed.slice(from, choice.to).map((w): CueWord => ({ text: w.text, start: w.startMs / 1000, end: w.endMs / 1000 }));
    const bounds = [0, ...choice.breaks, cueWords.length];
    const lines = bounds.slice(0, -1).map((at, l) => ({ words: cueWords.slice(at, bounds[l + 1]) }));
    cues.push({ start: timed[from]!.startMs / 1000, end: choice.endMs / 1000, lines });
    breaks.push(choice.ruleBreaks);
    from = choice.to;
  }
  return { cues, breaks };
}

/**
 * The end that breaks fewest timing rules, then breaks them least, then shows the cue longest. The rules change
 * their verdict only at the thresholds tried here (each checked on its own kept side), so none is better.
 */
function chooseEnd(startMs: number, words: readonly TimedWord[], characters: number, nextStartMs: number | null, videoEndMs: number, limits: RuleLimits) {
  const lastWordEndMs = Math.max(...words.map((w) => w.endMs));
  // Cues never overlap, outlast the video, or stay longer than the linger after their last word.
  const latest = Math.max(startMs, Math.min(nextStartMs ?? Infinity, videoEndMs, lastWordEndMs + limits.maxLingerMs));
  const perSecond = limits.maxCharsPerSecond === null ? [] : [startMs + Math.ceil((characters * 1000) / limits.maxCharsPerSecond)];
  const perMinute = limits.maxWordsPerMinute === null ? [] : [startMs + Math.ceil((words.length * 60_000) / limits.maxWordsPerMinute)];
  const candidates = [
    startMs,
    latest,
    lastWordEndMs,
    lastWordEndMs + limits.maxLingerMs,
    startMs + limits.minDurationMs,
    startMs + limits.maxDurationMs,
    ...perSecond,
    ...perMinute,
    ...(nextStartMs === null ? [] : [nextStartMs - limits.minGapMs, nextStartMs - limits.closeGapsBelowMs]),
  ];
  let chosen: { endMs: number; breaks: RuleBreak[]; cost: Cost } | null = null;
  for (const candidate of candidates) {
    const endMs = Math.min(Math.max(candidate, startMs), latest);
    const breaks = timingRuleBreaks({ startMs, endMs, firstWordStartMs: startMs, lastWordEndMs, characters, words: words.length, nextStartMs }, limits);
    const cost = { broken: breaks.length, penalty: EXCESS_WEIGHT * breaks.reduce((sum, b) => sum + b.excess / (b.limit || 1), 0) };
    if (chosen === null || better(cost, chosen.cost) || (!better(chosen.cost, cost) && endMs > chosen.endMs)) chosen = { endMs, breaks, cost };
  }
  return chosen!;
}

/** A line longer than the profile allows: only a word longer than a line, alone on it, makes one. */
function overlongLines(texts: readonly string[], lineBreaks: readonly number[], limits: RuleLimits): RuleBreak[] {
  const bounds = [0, ...lineBreaks, texts.length];
  const longest = Math.max(...bounds.slice(0, -1).map((at, l) => [...texts.slice(at, bounds[l + 1]).join(" ")].length));
  if (longest <= limits.maxCharsPerLine) return [];
  return [{ rule: "max_chars_per_line", unit: "characters", limit: limits.maxCharsPerLine, value: longest, excess: longest - limits.maxCharsPerLine }];
}

/** How well a cue reads: where it ends, sentences run on inside a line, long pauses inside it, its lines. */
function readingCost(words: readonly TimedWord[], lines: { breaks: readonly number[]; cost: number }, last: boolean): number {
  let cost = PER_CUE + LINE_COST_WEIGHT * lines.cost;
  if (!last) {
    const ending = words.at(-1)!.text;
    cost += SENTENCE_END.test(ending) ? 0 : CLAUSE_END.test(ending) ? CUE_AFTER_CLAUSE : CUE_AFTER_WORD;
  }
  for (let i = 0; i + 1 < words.length; i++) {
    if (SENTENCE_END.test(words[i]!.text) && !lines.breaks.includes(i + 1)) cost += SENTENCE_INSIDE_LINE;
    if (words[i + 1]!.startMs - words[i]!.endMs >= PAUSE_INSIDE_CUE_MS) cost += PAUSE_INSIDE_CUE;
  }
  return cost;
}
