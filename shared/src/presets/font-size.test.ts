import assert from "node:assert/strict";
import { test } from "node:test";
import { FONT_FAMILIES, TEXT_WIDTHS, type FontFamily } from "../api/style.ts";
import { AVERAGE_ADVANCE_EM, CHARACTERS_PER_LINE, REFERENCE_LINE_WIDTH, fontSizeFor } from "./font-size.ts";

// The documented table in font-size.ts.
const TABLE: Record<FontFamily, [small: number, medium: number, large: number]> = {
  "Inter": [138, 97, 69],
  "Urbanist": [150, 105, 75],
  "Rubik": [141, 99, 71],
  "Bangers": [181, 127, 91],
  "Paytone One": [129, 91, 65],
  "Slackey": [107, 75, 53],
  "Permanent Marker": [131, 92, 65],
  "Caveat Brush": [185, 130, 93],
  "Zilla Slab": [153, 107, 76],
  "Young Serif": [132, 93, 66],
  "Instrument Serif": [194, 136, 97],
  "Bebas Neue": [195, 137, 98],
  "Coiny": [127, 89, 64],
};

for (const family of FONT_FAMILIES) {
  test(`${family}: sizes match the documented table`, () => {
    assert.deepEqual(TEXT_WIDTHS.map((width) => fontSizeFor(family, width)), TABLE[family]);
  });

  test(`${family}: small is the largest type, large the smallest, all whole pixels within 12..240`, () => {
    const [small, medium, large] = TEXT_WIDTHS.map((width) => fontSizeFor(family, width)) as [number, number, number];
    assert.ok(small > medium && medium > large);
    for (const size of [small, medium, large]) assert.ok(Number.isInteger(size) && size >= 12 && size <= 240);
  });
}

test("every family fills a reference line with about the same number of characters", () => {
  for (const width of TEXT_WIDTHS) {
    for (const family of FONT_FAMILIES) {
      const characters = REFERENCE_LINE_WIDTH / (fontSizeFor(family, width) * AVERAGE_ADVANCE_EM[family]);
      assert.ok(Math.abs(characters - CHARACTERS_PER_LINE[width]) / CHARACTERS_PER_LINE[width] < 0.01, `${family} ${width}: ${characters}`);
    }
  }
});

test("condensed families get larger type than wide ones", () => {
  for (const width of TEXT_WIDTHS) {
    assert.ok(fontSizeFor("Bebas Neue", width) > fontSizeFor("Inter", width));
    assert.ok(fontSizeFor("Inter", width) > fontSizeFor("Slackey", width));
    assert.ok(fontSizeFor("Inter", width) > fontSizeFor("Coiny", width));
  }
});
