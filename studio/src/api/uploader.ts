import { Upload as TusUpload } from "tus-js-client";
import { ApiError, postJson } from "./client.ts";
import type { Upload } from "./types.ts";

// A file from the person's disk, sent over tus. The upload (its id and signed URL, no key) is remembered in this
// tab's sessionStorage under the file's fingerprint, so choosing the same file after a reload resumes where the
// service's offset says instead of starting again.

const STORAGE_KEY = "caption-studio-uploads";
const FILENAME = /^[^\u0000-\u001f\u007f/\\]{1,255}$/u;

interface Remembered {
  id: string;
  upload_url: string;
  expires_at: string;
}

const fingerprint = (file: File) => [file.name, file.size, file.lastModified, file.type].join("\u0000");

function remembered(): Record<string, Remembered> {
  try {
    return JSON.parse(sessionStorage.getItem(STORAGE_KEY) ?? "{}") as Record<string, Remembered>;
  } catch {
    return {};
  }
}

function remember(file: File, upload: Remembered | null): void {
  const all = remembered();
  if (upload) all[fingerprint(file)] = upload;
  else delete all[fingerprint(file)];
  sessionStorage.setItem(STORAGE_KEY, JSON.stringify(all));
}

export interface UploadCallbacks {
  onProgress(sent: number, total: number): void;
  onDone(uploadId: string): void;
  onError(error: unknown): void;
}

export interface RunningUpload {
  uploadId: string;
  /** The upload resumed one this tab began before (a reload), rather than starting anew. */
  resumed: boolean;
  pause(): void;
  resume(): void;
}

/**
 * Sends `file`: resumes the upload remembered for it, or creates one (a file over the service's limit is refused
 * there, 413, before any of its bytes is sent).
 */
export async function startUpload(key: string, file: File, callbacks: UploadCallbacks): Promise<RunningUpload> {
  const known = remembered()[fingerprint(file)];
  const usable = known && new Date(known.expires_at).getTime() > Date.now() + 60_000;
  const upload = usable ? known : await createUpload(key, file);
  if (!usable) remember(file, upload);
  const tus = new TusUpload(file, {
    uploadUrl: upload.upload_url,
    uploadSize: file.size,
    retryDelays: [0, 1000, 3000, 5000],
    storeFingerprintForResuming: false,
    removeFingerprintOnSuccess: false,
    onProgress: (sent, total) => callbacks.onProgress(sent, total),
    onSuccess: () => {
      remember(file, null);
      callbacks.onDone(upload.id);
    },
    onError: (error) => {
      // The remembered upload is gone (expired, deleted): forget it, so choosing the file again starts anew.
      const status = (error as { originalResponse?: { getStatus(): number } | null }).originalResponse?.getStatus();
      if (status === 404 || status === 410) remember(file, null);
      callbacks.onError(status === 410 ? new ApiError(410, "UPLOAD_EXPIRED", "the upload expired; choose the file again to start a new one") : error);
    },
  });
  tus.start();
  return { uploadId: upload.id, resumed: Boolean(usable), pause: () => void tus.abort(), resume: () => tus.start() };
}

async function createUpload(key: string, file: File): Promise<Remembered> {
  const body = { size_bytes: file.size, ...(FILENAME.test(file.name) ? { filename: file.name } : {}) };
  const created = await postJson<Upload>("v1/uploads", { key, body });
  return { id: created.id, upload_url: created.upload_url, expires_at: created.expires_at };
}
