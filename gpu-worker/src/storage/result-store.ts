/** Where finished outputs go. Keys are `<job_id>/<file name>`; the control plane turns them into capability URLs. */
export interface ResultStore {
  /** Stores a local file under the job's key and returns the key. Overwrites (retries are idempotent). */
  put(jobId: string, name: string, sourcePath: string, contentType: string): Promise<string>;
  /** Removes every stored file of a job; missing files are fine. */
  deleteJob(jobId: string): Promise<void>;
}

export const RESULT_FILES = {
  video: { name: "captioned.mp4", contentType: "video/mp4" },
  srt: { name: "captions.srt", contentType: "application/x-subrip; charset=utf-8" },
  transcript: { name: "transcript.json", contentType: "application/json" },
} as const;
