import { open } from "node:fs/promises";
import { JobFailure } from "@caption/shared/errors/codes";

/** The ffmpeg demuxer that reads an accepted container: MP4/MOV (ISO BMFF, QuickTime) or Matroska/WebM. */
export type SourceContainer = "mov" | "matroska";

/** Every demuxer ffmpeg/ffprobe may use on a source (`-format_whitelist`). */
export const ACCEPTED_DEMUXERS: readonly SourceContainer[] = ["mov", "matroska"];

const EBML_MAGIC = Buffer.from([0x1a, 0x45, 0xdf, 0xa3]);
// Top-level boxes an MP4 or MOV file may open with (ISO/IEC 14496-12, QuickTime File Format).
const LEADING_BOXES = new Set(["ftyp", "styp", "moov", "mdat", "free", "skip", "wide", "pnot", "uuid", "junk"]);
const HEAD_BYTES = 64;

// Text formats ffmpeg would follow to other files or URLs, named so the error says what was sent.
const TEXT_FORMATS: [RegExp, string][] = [
  [/^#EXTM3U/, "an HLS playlist"],
  [/^ffconcat\b/i, "an ffconcat script"],
  [/^(<\?xml|<MPD\b)/i, "an XML document (a DASH manifest?)"],
  [/^(\[playlist\]|<asx\b|#EXTINF|<smil\b|<\?wpl)/i, "a playlist"],
  [/^(<!doctype html|<html\b)/i, "an HTML page"],
];

function notAVideo(what: string): JobFailure {
  return new JobFailure("UNSUPPORTED_FORMAT", `The file is ${what}, not an MP4, MOV or WebM video`);
}

/** Reads the container from the file's first bytes; anything else is refused before any demuxer sees it. */
export function containerOf(head: Buffer): SourceContainer {
  if (head.length >= 4 && head.subarray(0, 4).equals(EBML_MAGIC)) return "matroska";
  if (head.length >= 8) {
    const size = head.readUInt32BE(0);
    const type = head.toString("latin1", 4, 8);
    if ((size === 0 || size === 1 || size >= 8) && LEADING_BOXES.has(type)) return "mov";
  }
  const text = head.toString("utf8").replace(/^\uFEFF/, "").trimStart();
  const named = TEXT_FORMATS.find(([pattern]) => pattern.test(text));
  if (named) throw notAVideo(named[1]);
  if (head.length === 0) throw notAVideo("empty");
  throw notAVideo("not a recognised video container");
}

/** The container of the file at `path`, from its magic bytes (see `containerOf`). */
export async function sniffContainer(path: string): Promise<SourceContainer> {
  const file = await open(path, "r");
  try {
    const head = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await file.read(head, 0, HEAD_BYTES, 0);
    return containerOf(head.subarray(0, bytesRead));
  } finally {
    await file.close();
  }
}
