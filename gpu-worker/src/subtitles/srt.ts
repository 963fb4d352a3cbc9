import { lineText, type Cue } from "../render/cue-builder.ts";
import { clockTime, toMs } from "./clock-time.ts";

/** SRT text for the cues: numbered from 1, original words (text case never applies), CRLF-free UTF-8 text. */
export function cuesToSrt(cues: readonly Cue[]): string {
  return cues
    .map((cue, i) => {
      const text = cue.lines.map((line) => lineText(line.words)).join("\n");
      return `${i + 1}\n${formatSrtTime(cue.start)} --> ${formatSrtTime(cue.end)}\n${text}\n`;
    })
    .join("\n");
}

/** `HH:MM:SS,mmm` for a time in seconds, rounded to the millisecond. */
export function formatSrtTime(seconds: number): string {
  return clockTime(toMs(seconds), ",");
}

export interface SrtEntry {
  index: number;
  start: number;
  end: number;
  text: string;
}

const TIMING = /^(\d{2,}):(\d{2}):(\d{2}),(\d{3}) --> (\d{2,}):(\d{2}):(\d{2}),(\d{3})$/u;

/** Parses SRT text as this module writes it (also accepts CRLF); throws on anything malformed. */
export function parseSrt(srt: string): SrtEntry[] {
  const blocks = srt.replace(/\r\n/gu, "\n").trim().split(/\n{2,}/u).filter((b) => b.length > 0);
  return blocks.map((block) => {
    const [indexLine, timingLine, ...textLines] = block.split("\n");
    const index = Number(indexLine);
    const timing = TIMING.exec(timingLine ?? "");
    if (!Number.isInteger(index) || timing === null) throw new Error(`Malformed SRT block: ${JSON.stringify(block)}`);
    const t = timing.slice(1).map(Number);
    const seconds = (h: number, m: number, s: number, ms: number) => h * 3600 + m * 60 + s + ms / 1000;
    return { index, start: seconds(t[0]!, t[1]!, t[2]!, t[3]!), end: seconds(t[4]!, t[5]!, t[6]!, t[7]!), text: textLines.join("\n") };
  });
}
