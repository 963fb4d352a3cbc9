import { createWriteStream } from "node:fs";
import { mkdir, rename, rm } from "node:fs/promises";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { Job } from "@caption/shared/api/job";
import { CaptionApiError } from "./api-client.ts";
import { OUTPUT_KINDS, type OutputPaths } from "./output-names.ts";

/** The signed result link behind each output, from a completed job. */
export function resultLinks(job: Job): Record<keyof OutputPaths, string> {
  const links = {
    video: job.video?.url,
    srt: job.subtitles?.srt_url,
    vtt: job.subtitles?.vtt_url,
    ass: job.subtitles?.ass_url,
    transcript: job.subtitles?.transcript_url,
  };
  for (const kind of OUTPUT_KINDS) {
    if (typeof links[kind] !== "string") throw new CaptionApiError("RESULT_MISSING", `job ${job.id} completed without a ${kind} link`);
  }
  return links as Record<keyof OutputPaths, string>;
}

/**
 * Streams each result to its path (no file is held in memory), through a temporary name beside it so a broken
 * download never leaves a truncated file under the final name. The links need no key.
 */
export async function downloadResults(job: Job, paths: OutputPaths): Promise<void> {
  const links = resultLinks(job);
  await mkdir(path.dirname(paths.video), { recursive: true });
  await Promise.all(
    OUTPUT_KINDS.map(async (kind) => {
      const target = paths[kind];
      const partial = `${target}.part-${process.pid}`;
      const response = await fetch(links[kind]);
      if (!response.ok || response.body === null) throw new CaptionApiError("DOWNLOAD_FAILED", `${kind} answered ${response.status}`, response.status);
      try {
        await pipeline(Readable.fromWeb(response.body), createWriteStream(partial, { mode: 0o644 }));
        await rename(partial, target);
      } catch (error) {
        await rm(partial, { force: true });
        throw error;
      }
    }),
  );
}
