import type { Cue } from "../render/cue-builder.ts";
import { clockTime, toMs } from "./clock-time.ts";

/**
 * WebVTT text for the cues: the same cues, lines and words as the SRT, plus a cue timestamp tag
 * `<hh:mm:ss.mmm>` before every word after the first, at the time it is spoken, so players can
 * highlight the spoken word. Text case never applies (as in the SRT).
 */
export function cuesToVtt(cues: readonly Cue[]): string {
  const blocks = cues.map((cue, i) => {
    const startMs = toMs(cue.start);
    // WebVTT wants a cue to end after it starts; a zero-length cue (possible with edited words) gets 1 ms.
    const endMs = Math.max(toMs(cue.end), startMs + 1);
    // A timestamp tag must lie strictly between the cue's start, any earlier tag and the cue's end:
    // words that start together share the earlier tag.
    let lastTagMs = startMs;
    const lines = cue.lines.map((line) =>
      line.words
        .map((word) => {
          const atMs = toMs(word.start);
          const text = escapeCueText(word.text);
          if (atMs <= lastTagMs || atMs >= endMs) return text;
          lastTagMs = atMs;
          return `<${formatVttTime(atMs)}>${text}`;
        })
        .join(" "),
    );
    return `${i + 1}\n${formatVttTime(startMs)} --> ${formatVttTime(endMs)}\n${lines.join("\n")}\n`;
  });
  return ["WEBVTT\n", ...blocks].join("\n");
}

/** `hh:mm:ss.mmm` for a time in milliseconds (hours always written, as the cue timestamp tags use them). */
export function formatVttTime(totalMs: number): string {
  return clockTime(totalMs, ".");
}

// Cue text is markup: `&`, `<` and `>` are written as character references ("-->" cannot occur then).
function escapeCueText(text: string): string {
  return text.replace(/&/gu, "&amp;").replace(/</gu, "&lt;").replace(/>/gu, "&gt;");
}
