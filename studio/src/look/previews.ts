import { ApiError, pause, send } from "../api/client.ts";
import type { PreviewRequest } from "../api/types.ts";

/** What previews are drawn on: the person's upload at one instant, at its size; or a checkerboard, for a URL. */
export interface Canvas {
  width: number;
  height: number;
  background?: { upload_id: string; at: number };
}

/** A checkerboard of a portrait video's shape, for a video the service has not seen yet. */
export const CHECKERBOARD: Canvas = { width: 540, height: 960 };
const ATTEMPTS = 5;
// PNG: the worker keeps the frame's rows filtered and re-encodes only the caption band's, about five times quicker
// than WebP over the whole frame (1080 × 1920: 0.25 s against 1.3 s on a busy 2-core machine), which keeps a redraw
// well inside the preview's 2 s deadline. Its bytes are more (a few MB at 1080p), which loopback and a LAN carry.
const FORMAT = "png";

/**
 * A still of `preset` and `style` on the canvas, as the API draws it. Busy workers (503) and the previews' own
 * rate (429) say when to ask again, and it does: the first preview over an upload waits for the worker's copy.
 */
export async function drawPreview(key: string, canvas: Canvas, look: Pick<PreviewRequest, "preset" | "style">, signal?: AbortSignal): Promise<Blob> {
  const background = canvas.background ? { background: canvas.background } : {};
  const request: PreviewRequest = { ...look, width: canvas.width, height: canvas.height, format: FORMAT, ...background };
  for (let attempt = 1; ; attempt++) {
    try {
      return await (await send("POST", "v1/previews", { key, body: request, ...(signal ? { signal } : {}) })).blob();
    } catch (error) {
      if (!(error instanceof ApiError) || (error.status !== 503 && error.status !== 429) || attempt === ATTEMPTS) throw error;
      await pause((error.retryAfter ?? 2) * 1000, signal);
    }
  }
}

/** The size and length of a chosen file, as the browser reads it (null when it cannot: no video it knows). */
export function videoFacts(file: File): Promise<{ width: number; height: number; duration: number } | null> {
  return new Promise((resolve) => {
    const video = document.createElement("video");
    const url = URL.createObjectURL(file);
    const done = (facts: { width: number; height: number; duration: number } | null) => {
      URL.revokeObjectURL(url);
      video.removeAttribute("src");
      resolve(facts);
    };
    video.preload = "metadata";
    video.muted = true;
    video.addEventListener("loadedmetadata", () => done(video.videoWidth > 0 ? { width: video.videoWidth, height: video.videoHeight, duration: video.duration } : null), { once: true });
    video.addEventListener("error", () => done(null), { once: true });
    video.src = url;
  });
}

/** The upload's canvas: a frame a third of the way in (past a fade-in), at the video's size. */
export function uploadCanvas(uploadId: string, facts: { width: number; height: number; duration: number } | null): Canvas {
  // Unknown to the browser: the worker inspects the file and says what it makes of it.
  const { width, height, duration } = facts ?? { width: 1080, height: 1920, duration: 1 };
  const at = Number.isFinite(duration) && duration > 0 ? Math.floor(duration * 0.3 * 1000) / 1000 : 0;
  return { width, height, background: { upload_id: uploadId, at } };
}
