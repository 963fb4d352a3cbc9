import { execFile } from "node:child_process";
import { promisify } from "node:util";

const execFileAsync = promisify(execFile);

/** One decoded frame at `seconds`, as packed RGB24. */
export async function frameAt(file: string, seconds: number, size: { width: number; height: number }): Promise<Buffer> {
  const { stdout } = await execFileAsync(
    "ffmpeg",
    ["-v", "error", "-ss", seconds.toFixed(3), "-i", file, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", "pipe:1"],
    { encoding: "buffer", maxBuffer: size.width * size.height * 3 + 1024 },
  );
  return stdout;
}

/** Mean absolute difference per channel (0–255) between two frames over rows [fromRow, toRow). */
export function meanDifference(a: Buffer, b: Buffer, width: number, fromRow: number, toRow: number): number {
  let sum = 0;
  const start = fromRow * width * 3;
  const end = toRow * width * 3;
  for (let i = start; i < end; i++) sum += Math.abs((a[i] ?? 0) - (b[i] ?? 0));
  return sum / (end - start);
}

/** Largest per-row mean difference: a caption is a narrow band of strong change. */
export function maxRowDifference(a: Buffer, b: Buffer, width: number, height: number): { row: number; difference: number } {
  let best = { row: 0, difference: 0 };
  for (let row = 0; row < height; row++) {
    const difference = meanDifference(a, b, width, row, row + 1);
    if (difference > best.difference) best = { row, difference };
  }
  return best;
}
