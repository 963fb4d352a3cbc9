/**
 * The ffmpeg `ass` filter (libass) drawing a script with the fonts of one flat folder (linkBundledFonts()),
 * escaped for both levels ffmpeg parses: the option value (`:` separates options) and the filtergraph
 * (`,;[]` separate filters), each with `\` and `'` as escapes.
 */
export function assFilter(assPath: string, fontsDir: string): string {
  const option = (value: string) => value.replace(/[\\':]/gu, "\\$&");
  const description = `ass=filename=${option(assPath)}:fontsdir=${option(fontsDir)}`;
  return description.replace(/[\\'[\],;]/gu, "\\$&");
}
