import path from "node:path";
import type { CaptionInput } from "./caption-args.ts";

/** The job's result link behind each output (`Job` fields), in the order they are written. */
export const OUTPUT_KINDS = ["video", "srt", "vtt", "ass", "transcript"] as const;

/** The five files a caption run writes, each an absolute path. */
export type OutputPaths = Record<(typeof OUTPUT_KINDS)[number], string>;

/**
 * `talk.mp4` → `talk.captioned.mp4`, `talk.srt`, `talk.vtt`, `talk.ass`, `talk.transcript.json`, beside the input
 * (or in `outDir`). A URL's files are named after its last path segment, made safe for any file system, in `cwd`
 * unless `outDir` says otherwise.
 */
export function outputPaths(input: CaptionInput, outDir: string | undefined, cwd: string): OutputPaths {
  const dir = outDir ?? (input.kind === "file" ? path.dirname(input.path) : cwd);
  const stem = input.kind === "file" ? withoutExtension(path.basename(input.path)) : urlStem(input.url);
  const at = (suffix: string) => path.join(dir, `${stem}${suffix}`);
  return { video: at(".captioned.mp4"), srt: at(".srt"), vtt: at(".vtt"), ass: at(".ass"), transcript: at(".transcript.json") };
}

function withoutExtension(name: string): string {
  const dot = name.lastIndexOf(".");
  // A dot file (".mp4") or a name without a dot keeps its whole name.
  return dot > 0 ? name.slice(0, dot) : name;
}

function urlStem(url: string): string {
  let segment = "";
  try {
    segment = new URL(url).pathname.split("/").filter(Boolean).at(-1) ?? "";
    // An encoded slash names no directory: only what follows the last one counts.
    segment = decodeURIComponent(segment).split(/[\\/]/).at(-1) ?? "";
  } catch {
    // An undecodable segment is kept raw, then made safe like any other.
  }
  const safe = withoutExtension(segment)
    .replace(/[^\p{L}\p{N}._-]+/gu, "_")
    .replace(/^[._]+/, "")
    .slice(0, 100);
  return safe === "" ? "video" : safe;
}
