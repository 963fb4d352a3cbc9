import { ACCEPTED_DEMUXERS, type SourceContainer } from "./source-container.ts";

/** A downloaded, untrusted media file and the container its magic bytes name. */
export interface SourceFile {
  path: string;
  container: SourceContainer;
}

/** `-t` value: whole milliseconds, rounded up so the last frame inside the limit is kept. */
export function limitArg(seconds: number): string {
  return (Math.ceil(seconds * 1000) / 1000).toFixed(3);
}

/**
 * The input-side arguments for every ffmpeg/ffprobe run that reads a source: the demuxer is named
 * (no probing, so a playlist, manifest or concat script is never interpreted), only the accepted
 * demuxers and the `file` protocol are allowed (so nothing inside the file can open another file or
 * a URL), MOV external data references stay off, and `limitSeconds` bounds how much is read.
 */
export function sourceInputArgs(source: SourceFile, options: { limitSeconds?: number } = {}): string[] {
  return [
    "-protocol_whitelist", "file",
    "-format_whitelist", ACCEPTED_DEMUXERS.join(","),
    "-f", source.container,
    ...(source.container === "mov" ? ["-enable_drefs", "0"] : []),
    ...(options.limitSeconds === undefined ? [] : ["-t", limitArg(options.limitSeconds)]),
    // The `file:` prefix keeps a path from ever being read as another protocol's URL.
    "-i", `file:${source.path}`,
  ];
}
