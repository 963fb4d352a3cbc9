import { execFile } from "node:child_process";
import { mkdir, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { Value } from "@sinclair/typebox/value";
import { BenchResultSchema, type BenchResult } from "./bench-result.ts";
import { stageChartSvg } from "./stage-chart-svg.ts";
import { summaryMarkdown } from "./summary-markdown.ts";

export type Measured = Pick<BenchResult, "jobs" | "asr" | "presets" | "concurrent" | "api">;

export interface BenchFiles {
  /** The path of the files without their extensions: `<results>/<timestamp>`. */
  base: string;
  /** What is measured so far, in `<timestamp>.partial.json`: a failure late in a long run loses nothing measured. */
  savePartial(measured: Measured): Promise<void>;
  /** The result as JSON (checked against its schema), its stage chart (SVG) and its summary (Markdown, returned); the partial file goes. */
  write(result: BenchResult): Promise<string>;
}

export function benchFiles(resultsDir: string, startedAt: Date, command: string): BenchFiles {
  const stamp = startedAt.toISOString().replace(/[:.]/g, "-");
  const base = path.join(resultsDir, stamp);
  return {
    base,
    async savePartial(measured) {
      await mkdir(resultsDir, { recursive: true });
      await writeFile(`${base}.partial.json`, `${JSON.stringify({ started_at: startedAt.toISOString(), command, ...measured }, null, 2)}\n`);
    },
    async write(result) {
      if (!Value.Check(BenchResultSchema, result)) throw new Error(`result does not match its schema: ${JSON.stringify([...Value.Errors(BenchResultSchema, result)].slice(0, 3))}`);
      await mkdir(resultsDir, { recursive: true });
      await writeFile(`${base}.json`, `${JSON.stringify(result, null, 2)}\n`);
      await writeFile(`${base}.svg`, stageChartSvg(result));
      const markdown = summaryMarkdown(result, `${stamp}.svg`);
      await writeFile(`${base}.md`, markdown);
      await rm(`${base}.partial.json`, { force: true });
      return markdown;
    },
  };
}

/** The machine a run measured, with its load before and after: other work on it skews the figures. */
export async function machineInfo(loadAverageAtStart: number[]): Promise<BenchResult["machine"]> {
  const { stdout } = await promisify(execFile)("ffmpeg", ["-version"]);
  return {
    cpus: os.availableParallelism(),
    cpu_model: os.cpus()[0]?.model ?? "unknown",
    memory_gib: Math.round(os.totalmem() / 2 ** 30),
    node: process.versions.node,
    ffmpeg: stdout.split("\n")[0]?.replace(/^ffmpeg version (\S+).*$/, "$1") ?? "unknown",
    load_average_at_start: loadAverageAtStart,
    load_average_at_end: os.loadavg(),
  };
}
