import { MAX_PREVIEW_SHORT_SIDE, type PreviewRequest } from "@caption/shared/api/preview";
import { MAX_VIDEO_SECONDS } from "@caption/shared/api/submission";
import type { Word } from "@caption/shared/api/transcript";
import { backgroundProblem, seconds, type BackgroundVideoFacts } from "@caption/shared/preview/background-rules";
import { previewWords } from "@caption/shared/preview/preview-timeline";
import { checkEditedWords } from "./edited-words.ts";
import { invalidRequest } from "./service-error.ts";

/**
 * The rules of a preview request beyond its schema, each refusal naming the field: text or words (not both),
 * the words' times, the frame's size (at most 1920 × 1080 either way, even for an MP4, the background's own), and
 * the instants (a still's within the words, a clip's start before they end, the background's within its video).
 * An upload's video is known to the worker alone, which checks the background's rules then. Returns the words.
 */
export function checkPreviewRequest(request: PreviewRequest, background: BackgroundVideoFacts | undefined): Word[] {
  if (request.text !== undefined && request.words !== undefined) throw invalidRequest("text and words exclude each other: give one of them");
  if (request.text !== undefined && request.text.trim() === "") throw invalidRequest("text must hold at least one word");
  if (request.words) {
    const checked = checkEditedWords(request.words, background?.durationSeconds ?? MAX_VIDEO_SECONDS, () => null);
    if ("problem" in checked) throw invalidRequest(checked.problem);
  }
  checkSize(request);
  const words = previewWords(request);
  const first = words[0]!.start;
  const last = Math.max(...words.map((w) => w.end));
  if (request.format !== "mp4") {
    if (request.duration !== undefined) throw invalidRequest("duration is for mp4 clips only");
    if (request.at !== undefined && (request.at < first || request.at > last)) throw invalidRequest(`at must lie within the words, ${seconds(first)} to ${seconds(last)} (got ${seconds(request.at)})`);
  } else if (request.at !== undefined && request.at >= last) {
    throw invalidRequest(`at must be before the last word ends at ${seconds(last)} (got ${seconds(request.at)})`);
  }
  const problem = background && backgroundProblem(request, words, background);
  if (problem) throw invalidRequest(problem);
  return words;
}

function checkSize(request: PreviewRequest): void {
  const { width, height } = request;
  if (Math.min(width, height) > MAX_PREVIEW_SHORT_SIDE) {
    const [field, other] = width <= height ? ["width", "height"] : ["height", "width"];
    throw invalidRequest(`${field} must be at most ${MAX_PREVIEW_SHORT_SIDE} when ${other} is ${request[other as "width" | "height"]}: a preview is at most 1920 × 1080 either way`);
  }
  if (request.format === "mp4") {
    for (const field of ["width", "height"] as const) if (request[field] % 2 !== 0) throw invalidRequest(`${field} must be even for an mp4 clip (got ${request[field]})`);
  }
}
