/**
 * The ffmpeg `ass` filter (libass) drawing a script with the fonts of one flat folder (linkBundledFonts()),
 * escaped for both levels ffmpeg parses: the option value (`:` separates options) and the filtergraph
 * (`,;[]` separate filters), each with `\` and `'` as escapes. `subtitles` reads the file through
 * ffmpeg's subtitle demuxer first, as a player or editor would, then draws it with libass the same way.
 */
export function assFilter(assPath: string, fontsDir: string, filter: "ass" | "subtitles" = "ass"): string {
  const option = (value: string) => value.replace(/[\\':]/gu, "\\$&");
  const description = `${filter}=filename=${option(assPath)}:fontsdir=${option(fontsDir)}`;
  return description.replace(/[\\'[\],;]/gu, "\\$&");
}
