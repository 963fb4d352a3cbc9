import type { FontFamily, TEXT_WIDTHS } from "../api/style.ts";

export type TextWidth = (typeof TEXT_WIDTHS)[number];

/** Line width on the 1080 px caption canvas the derived sizes are designed for (the canvas less side margins). */
export const REFERENCE_LINE_WIDTH = 900;

/** Characters of ordinary text a reference line holds at each text width: small = larger type, fewer words. */
export const CHARACTERS_PER_LINE: Readonly<Record<TextWidth, number>> = { small: 14, medium: 20, large: 28 };

/**
 * Average advance per character, in em, of ordinary mixed-case English text (spaces and punctuation
 * included) set in each bundled family's regular face. Measured from the bundled TTFs; the worker's
 * font test re-measures them, so a font update that changes the metrics fails there.
 * Bebas Neue and Bangers are condensed caps fonts, Slackey and Coiny are wide.
 */
export const AVERAGE_ADVANCE_EM: Readonly<Record<FontFamily, number>> = {
  "Inter": 0.4644,
  "Urbanist": 0.4272,
  "Rubik": 0.4554,
  "Bangers": 0.3549,
  "Paytone One": 0.4967,
  "Slackey": 0.6031,
  "Permanent Marker": 0.4911,
  "Caveat Brush": 0.3473,
  "Zilla Slab": 0.421,
  "Young Serif": 0.4852,
  "Instrument Serif": 0.3313,
  "Bebas Neue": 0.3296,
  "Coiny": 0.5049,
};

/**
 * Font size (px on the 1080 px caption canvas, before scaling) for a family and text width, chosen so
 * a reference line holds the same number of characters whatever the family:
 * round(REFERENCE_LINE_WIDTH / (CHARACTERS_PER_LINE[width] × AVERAGE_ADVANCE_EM[family])).
 *
 * | family           | small | medium | large |
 * |------------------|-------|--------|-------|
 * | Inter            |  138  |   97   |   69  |
 * | Urbanist         |  150  |  105   |   75  |
 * | Rubik            |  141  |   99   |   71  |
 * | Bangers          |  181  |  127   |   91  |
 * | Paytone One      |  129  |   91   |   65  |
 * | Slackey          |  107  |   75   |   53  |
 * | Permanent Marker |  131  |   92   |   65  |
 * | Caveat Brush     |  185  |  130   |   93  |
 * | Zilla Slab       |  153  |  107   |   76  |
 * | Young Serif      |  132  |   93   |   66  |
 * | Instrument Serif |  194  |  136   |   97  |
 * | Bebas Neue       |  195  |  137   |   98  |
 * | Coiny            |  127  |   89   |   64  |
 */
export function fontSizeFor(family: FontFamily, width: TextWidth): number {
  return Math.round(REFERENCE_LINE_WIDTH / (CHARACTERS_PER_LINE[width] * AVERAGE_ADVANCE_EM[family]));
}
