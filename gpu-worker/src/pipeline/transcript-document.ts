import type { Segment, Transcript, Word } from "@caption/shared/api/transcript";
import type { ResolvedStyle } from "@caption/shared/style/resolved-style";

/** The transcript.json of a job: the words it was captioned with, where they came from, and the style. */
export function transcriptDocument(input: {
  jobId: string;
  language: string;
  durationSeconds: number;
  engine: string;
  model: string;
  words: Word[];
  segments: Segment[];
  style: ResolvedStyle;
}): Transcript {
  return {
    job_id: input.jobId,
    language: input.language,
    duration: input.durationSeconds,
    engine: input.engine,
    model: input.model,
    words: input.words,
    segments: input.segments,
    preset: input.style.preset,
    style: input.style,
  };
}

/**
 * The source's speech segments with their text taken from edited words: each word belongs to the
 * last segment that starts at or before it (words before the first belong to the first), a segment
 * stretches to hold its words, and segments left without words are dropped, as the recognizer drops
 * stretches of speech it found no words in. Without source segments the words make one segment.
 */
export function segmentsForWords(segments: readonly Segment[], words: readonly Word[]): Segment[] {
  if (words.length === 0) return [];
  const stretches = segments.length > 0 ? [...segments].sort((a, b) => a.start - b.start) : [{ start: words[0]!.start, end: words[0]!.end, text: "" }];
  const groups: Word[][] = stretches.map(() => []);
  let current = 0;
  for (const word of words) {
    while (current + 1 < stretches.length && stretches[current + 1]!.start <= word.start) current++;
    groups[current]!.push(word);
  }
  return stretches.flatMap((stretch, i) => {
    const held = groups[i]!;
    if (held.length === 0) return [];
    const start = Math.min(stretch.start, held[0]!.start);
    const end = held.reduce((latest, word) => Math.max(latest, word.end), stretch.end);
    return [{ start, end, text: held.map((word) => word.text).join(" ") }];
  });
}
