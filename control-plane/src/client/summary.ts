import path from "node:path";
import type { CaptionResult } from "./caption-run.ts";
import { OUTPUT_KINDS } from "./output-names.ts";
import type { SessionMode } from "./service-session.ts";

export interface CaptionOutcome extends CaptionResult {
  /** From the command's start to the files written (the embedded service's stop comes after). */
  wall_seconds: number;
  /** From the command's start until it had a service (the embedded one started, or one joined). */
  service_seconds: number;
  service: SessionMode;
}

/** What the command prints on stdout when it has written the files: each file, then what it cost. */
export function summaryLines(outcome: CaptionOutcome, cwd: string): string[] {
  const shown = (file: string) => {
    const relative = path.relative(cwd, file);
    return relative.startsWith("..") || path.isAbsolute(relative) ? file : relative;
  };
  return [
    `job ${outcome.job_id} completed in ${outcome.job_seconds.toFixed(1)} s; wrote:`,
    ...OUTPUT_KINDS.map((kind) => `  ${shown(outcome.files[kind])}`),
    `billed ${outcome.billed_seconds} s; balance left ${outcome.balance_seconds} s`,
  ];
}

/** The one JSON object of --json: the outcome, or `{ "error": { code, message } }`. */
export function outcomeJson(value: CaptionOutcome | { error: { code: string; message: string }; job_id?: string | null }): string {
  return JSON.stringify(value);
}
