/** Value formats of ASS scripts: times, colours, alpha, numbers and dialogue text. */

/** Seconds to whole centiseconds, the resolution of ASS times; every boundary is rounded once, the same way. */
export function centiseconds(seconds: number): number {
  return Math.max(0, Math.round(seconds * 100));
}

/** ASS time `h:mm:ss.cc` of a centisecond count. */
export function assTime(cs: number): string {
  const hours = Math.floor(cs / 360_000);
  const minutes = Math.floor(cs / 6_000) % 60;
  const seconds = Math.floor(cs / 100) % 60;
  const hundredths = cs % 100;
  return `${hours}:${pad2(minutes)}:${pad2(seconds)}.${pad2(hundredths)}`;
}

/** ASS alpha byte of an opacity: 00 is opaque, FF invisible. */
export function alphaByte(opacity: number): number {
  return Math.round((1 - Math.min(1, Math.max(0, opacity))) * 255);
}

/** Style-line colour `&HAABBGGRR` of `#RRGGBB` and an ASS alpha byte. */
export function assStyleColor(hex: string, alpha = 0): string {
  return `&H${byteHex(alpha)}${bgr(hex)}`;
}

/** Override-tag colour value `&HBBGGRR&` (for `\c`, `\3c`, ...). */
export function assTagColor(hex: string): string {
  return `&H${bgr(hex)}&`;
}

/** Override-tag alpha value `&HAA&` (for `\alpha`, `\3a`, ...). */
export function assTagAlpha(alpha: number): string {
  return `&H${byteHex(alpha)}&`;
}

/** A number as ASS fields take it: at most two decimals, no exponent, no negative zero. */
export function assNumber(value: number): string {
  const rounded = Math.round(value * 100) / 100;
  return rounded === 0 ? "0" : String(rounded);
}

// A backslash followed by a word joiner can no longer start `\N`, `\h` or `\{`; libass draws the joiner as nothing.
const WORD_JOINER = "\u2060";

/** Dialogue text as plain text: braces would open override blocks, backslashes start escapes, line breaks are `\N`. */
export function assEscape(text: string): string {
  return text
    .replaceAll("\\", `\\${WORD_JOINER}`)
    .replaceAll("{", "\\{")
    .replaceAll("}", "\\}")
    .replace(/\r\n|\r|\n/gu, "\\N");
}

function bgr(hex: string): string {
  const match = /^#([0-9a-fA-F]{2})([0-9a-fA-F]{2})([0-9a-fA-F]{2})$/u.exec(hex);
  if (match === null) throw new RangeError(`not a #RRGGBB colour: ${hex}`);
  return `${match[3]}${match[2]}${match[1]}`.toUpperCase();
}

function byteHex(value: number): string {
  return Math.min(255, Math.max(0, Math.round(value))).toString(16).toUpperCase().padStart(2, "0");
}

function pad2(value: number): string {
  return String(value).padStart(2, "0");
}
