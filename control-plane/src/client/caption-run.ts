import { randomUUID } from "node:crypto";
import { stat } from "node:fs/promises";
import path from "node:path";
import type { Job } from "@caption/shared/api/job";
import type { SubmissionRequest } from "@caption/shared/api/submission";
import { CaptionApiError, type CaptionApi } from "./api-client.ts";
import type { CaptionOptions } from "./caption-args.ts";
import { downloadResults } from "./download-results.ts";
import { followJob } from "./follow-job.ts";
import { outputPaths, type OutputPaths } from "./output-names.ts";
import type { ProgressReporter } from "./progress-reporter.ts";
import { uploadFile } from "./upload-file.ts";

/** What a completed run reports (the --json object, less the command's own wall time). */
export interface CaptionResult {
  job_id: string;
  status: "completed";
  files: OutputPaths;
  billed_seconds: number;
  balance_seconds: number;
  /** From the job's first event (queued) to its completion, by the API's clock. */
  job_seconds: number;
  /** Sending the file (0 for a URL), and fetching the five results, by this command's clock. */
  upload_seconds: number;
  download_seconds: number;
}

/** Ctrl-C: the job (if there is one yet) was canceled. */
export class CaptionCanceled extends Error {
  readonly jobId: string | undefined;
  readonly jobStatus: string | undefined;
  constructor(jobId?: string, jobStatus?: string) {
    super(jobId === undefined ? "canceled before a job was submitted" : `canceled job ${jobId}`);
    this.jobId = jobId;
    this.jobStatus = jobStatus;
  }
}

/**
 * One caption run against a service: upload (or the URL), submit, follow the job's events, download the five
 * files. `signal` is Ctrl-C: the upload is terminated, or the job canceled, and CaptionCanceled thrown.
 */
export async function runCaption(
  options: CaptionOptions,
  api: CaptionApi,
  reporter: ProgressReporter,
  cwd: string,
  signal: AbortSignal,
): Promise<CaptionResult> {
  const files = outputPaths(options.input, options.outDir, cwd);
  const uploadStarted = performance.now();
  const source = options.input.kind === "url" ? { video_url: options.input.url } : { upload_id: await upload(options.input.path, api, reporter, signal) };
  if (signal.aborted) throw new CaptionCanceled();
  const uploadSeconds = options.input.kind === "file" ? seconds(uploadStarted) : 0;
  const body: SubmissionRequest = {
    ...source,
    ...(options.preset === undefined ? {} : { preset: options.preset }),
    ...(options.style === undefined ? {} : { style: options.style as SubmissionRequest["style"] }),
    ...(options.language === undefined ? {} : { language: options.language }),
  };
  const submitted = await api.submit(body, randomUUID());
  reporter.note(`job ${submitted.id} submitted`);

  let first: string | undefined;
  let last: string | undefined;
  try {
    await followJob(
      api.baseUrl,
      api.key,
      submitted.id,
      (event) => {
        first ??= event.at;
        last = event.at;
        reporter.job(event.status, event.progress);
      },
      signal,
    );
  } catch (error) {
    if (!signal.aborted) throw error;
    const canceled = await api.cancel(submitted.id);
    throw new CaptionCanceled(submitted.id, canceled.status);
  } finally {
    reporter.stop();
  }
  const job = await api.job(submitted.id);
  if (job.status !== "completed") throw failure(job);
  const downloadStarted = performance.now();
  await downloadResults(job, files);
  const downloadSeconds = seconds(downloadStarted);
  const usage = await api.usage();
  return {
    job_id: job.id,
    status: "completed",
    files,
    billed_seconds: job.usage.billed_seconds,
    balance_seconds: usage.available_seconds,
    job_seconds: first === undefined || last === undefined ? 0 : (Date.parse(last) - Date.parse(first)) / 1000,
    upload_seconds: uploadSeconds,
    download_seconds: downloadSeconds,
  };
}

/** The input file's size; a missing one fails before any service is started or asked. */
export async function inputFileSize(file: string): Promise<number> {
  const found = await stat(file).catch(() => null);
  if (found === null) throw new CaptionApiError("FILE_NOT_FOUND", `${file}: no such file`);
  if (!found.isFile()) throw new CaptionApiError("FILE_NOT_FOUND", `${file} is not a file`);
  return found.size;
}

async function upload(file: string, api: CaptionApi, reporter: ProgressReporter, signal: AbortSignal): Promise<string> {
  const size = await inputFileSize(file);
  const ticket = await api.createUpload(size, path.basename(file));
  reporter.upload(0, size);
  const sending = uploadFile(file, ticket, (sent, total) => reporter.upload(sent, total));
  // Ctrl-C: the upload is terminated on the server, and the run ends canceled without waiting for that.
  let onAbort = () => {};
  const canceled = new Promise<never>((_, reject) => {
    onAbort = () => {
      void sending.abort().catch(() => undefined);
      reject(new CaptionCanceled());
    };
  });
  signal.addEventListener("abort", onAbort, { once: true });
  try {
    await Promise.race([sending.done, canceled]);
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
  return ticket.id;
}

const seconds = (since: number) => Number(((performance.now() - since) / 1000).toFixed(2));

function failure(job: Job): Error {
  if (job.status === "canceled") return new CaptionApiError("JOB_CANCELED", `job ${job.id} was canceled`);
  return new CaptionApiError(job.error?.code ?? "JOB_FAILED", job.error?.message ?? `job ${job.id} ended ${job.status}`);
}
