/** One `-progress` block of ffmpeg, reduced to the figures callers use; null where ffmpeg wrote N/A or nothing. */
export interface FfmpegProgress {
  frame: number | null;
  fps: number | null;
  outTimeSeconds: number | null;
  speed: number | null;
  done: boolean;
}

export interface ProgressParser {
  /** Feeds raw stdout text; chunks may split lines anywhere. Returns the blocks completed by this chunk. */
  push(chunk: string): FfmpegProgress[];
}

function parseNumber(raw: string | undefined): number | null {
  if (raw === undefined) return null;
  const trimmed = raw.trim().replace(/x$/, "");
  if (trimmed === "" || trimmed === "N/A") return null;
  const value = Number(trimmed);
  return Number.isFinite(value) ? value : null;
}

function parseClock(raw: string | undefined): number | null {
  const match = raw?.trim().match(/^(\d+):(\d{2}):(\d{2}(?:\.\d+)?)$/);
  if (!match) return null;
  return Number(match[1]) * 3600 + Number(match[2]) * 60 + Number(match[3]);
}

/** ffmpeg prints a huge negative out_time before the first packet; treat it as unknown. */
function parseOutTime(fields: ReadonlyMap<string, string>): number | null {
  const micros = parseNumber(fields.get("out_time_us"));
  const seconds = micros !== null ? micros / 1e6 : parseClock(fields.get("out_time"));
  return seconds !== null && seconds >= 0 ? seconds : null;
}

function toProgress(fields: ReadonlyMap<string, string>, done: boolean): FfmpegProgress {
  return {
    frame: parseNumber(fields.get("frame")),
    fps: parseNumber(fields.get("fps")),
    outTimeSeconds: parseOutTime(fields),
    speed: parseNumber(fields.get("speed")),
    done,
  };
}

/** Parser for `ffmpeg -progress pipe:1` output: key=value lines, each block closed by `progress=continue|end`. */
export function createProgressParser(): ProgressParser {
  let pending = "";
  let fields = new Map<string, string>();
  return {
    push(chunk) {
      pending += chunk;
      const lines = pending.split(/\r?\n/);
      pending = lines.pop() ?? "";
      const blocks: FfmpegProgress[] = [];
      for (const line of lines) {
        const eq = line.indexOf("=");
        if (eq <= 0) continue;
        const key = line.slice(0, eq).trim();
        const value = line.slice(eq + 1);
        if (key === "progress") {
          blocks.push(toProgress(fields, value.trim() === "end"));
          fields = new Map();
        } else {
          fields.set(key, value);
        }
      }
      return blocks;
    },
  };
}
