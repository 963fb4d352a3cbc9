import assert from "node:assert/strict";
import { test } from "node:test";
import { alphaByte, assEscape, assNumber, assStyleColor, assTagAlpha, assTagColor, assTime, centiseconds } from "./ass-format.ts";

test("ASS times are h:mm:ss.cc of centiseconds, every instant rounded the same way", () => {
  assert.equal(assTime(0), "0:00:00.00");
  assert.equal(assTime(centiseconds(1.006)), "0:00:01.01");
  assert.equal(assTime(centiseconds(1.004)), "0:00:01.00");
  assert.equal(assTime(centiseconds(3661.234)), "1:01:01.23");
  assert.equal(assTime(centiseconds(59.999)), "0:01:00.00");
  assert.equal(centiseconds(-0.2), 0);
});

test("colours are &HAABBGGRR with ASS alpha, 00 opaque", () => {
  assert.equal(assStyleColor("#FFD400"), "&H0000D4FF");
  assert.equal(assStyleColor("#7c3aed", alphaByte(0.6)), "&H66ED3A7C");
  assert.equal(assTagColor("#FF2D2D"), "&H2D2DFF&");
  assert.equal(assTagAlpha(alphaByte(0)), "&HFF&");
  assert.equal(assTagAlpha(alphaByte(1)), "&H00&");
  assert.throws(() => assStyleColor("#FFF"), RangeError);
});

test("dialogue text is escaped: braces, backslashes and line breaks stay text", () => {
  assert.equal(assEscape("a{b}c"), "a\\{b\\}c");
  assert.equal(assEscape("C:\\New"), "C:\\\u2060New");
  assert.equal(assEscape("one\ntwo\r\nthree"), "one\\Ntwo\\Nthree");
  assert.equal(assNumber(-0.001), "0");
  assert.equal(assNumber(138.7345), "138.73");
});
