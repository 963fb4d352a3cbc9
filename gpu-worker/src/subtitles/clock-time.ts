/** Whole milliseconds of a time in seconds; never negative. */
export const toMs = (seconds: number): number => Math.max(0, Math.round(seconds * 1000));

/** `HH:MM:SS<separator>mmm` for a time in milliseconds, hours always written (SRT uses ",", WebVTT "."). */
export function clockTime(totalMs: number, separator: "," | "."): string {
  const pad = (n: number, width = 2) => String(n).padStart(width, "0");
  const totalSeconds = Math.floor(totalMs / 1000);
  return `${pad(Math.floor(totalSeconds / 3600))}:${pad(Math.floor(totalSeconds / 60) % 60)}:${pad(totalSeconds % 60)}${separator}${pad(totalMs % 1000, 3)}`;
}
