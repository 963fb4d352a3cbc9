import { chmod, readFile, writeFile } from "node:fs/promises";
import path from "node:path";

// What each run of ffmpeg and ffprobe costs the worker, by what it is for. The service is given wrappers as
// FFMPEG_PATH and FFPROBE_PATH that run the real tool under GNU time and append "<part> <user s> <sys s>" to a
// log; a tool's CPU otherwise only shows summed into its parent's (the worker's node process) reaped time.

/** What a run is for, from its arguments (the first pattern that matches). */
const PARTS: readonly (readonly [part: string, pattern: string])[] = [
  ["render", "*-i pipe:0*"],
  ["recognition audio", "*-f f32le*"],
  ["pictures", "*picture-frames*"],
  ["pictures (seeking)", "*-ss*"],
  ["other", "*"],
];
const FFPROBE_PART = "inspection and checks (ffprobe)";

export const TIME_BINARY = "/usr/bin/time";

export interface ToolCpuLog {
  /** FFMPEG_PATH and FFPROBE_PATH for the service. */
  env: Record<string, string>;
  /** CPU milliseconds by part over the runs logged since `since` (a count of runs), and the runs logged so far. */
  read(since?: number): Promise<{ byPart: Record<string, number>; runs: number }>;
}

/** Writes the wrappers into `dir`; the real tools are found on PATH. */
export async function toolCpuLog(dir: string): Promise<ToolCpuLog> {
  const log = path.join(dir, "tool-cpu.log");
  await writeFile(log, "");
  const env: Record<string, string> = {};
  for (const tool of ["ffmpeg", "ffprobe"]) {
    const wrapper = path.join(dir, `${tool}-timed`);
    const cases = PARTS.map(([part, pattern]) => `  ${pattern.replaceAll(" ", "\\ ")}) part="${tool === "ffprobe" ? FFPROBE_PART : part}" ;;`).join("\n");
    await writeFile(
      wrapper,
      `#!/bin/sh\n# Written by the benchmark: runs ${tool} under GNU time, logging its CPU by part.\ncase " $* " in\n${cases}\nesac\n` +
        `exec ${TIME_BINARY} -q -a -o ${JSON.stringify(log)} -f "$part|%U|%S" ${tool} "$@"\n`,
    );
    await chmod(wrapper, 0o755);
    env[tool === "ffmpeg" ? "FFMPEG_PATH" : "FFPROBE_PATH"] = wrapper;
  }
  return {
    env,
    async read(since = 0) {
      const lines = (await readFile(log, "utf8")).split("\n").filter((line) => line.includes("|"));
      const byPart: Record<string, number> = {};
      for (const line of lines.slice(since)) {
        const [part, user, sys] = line.split("|");
        byPart[part!] = (byPart[part!] ?? 0) + Math.round((Number(user) + Number(sys)) * 1000);
      }
      return { byPart, runs: lines.length };
    },
  };
}
