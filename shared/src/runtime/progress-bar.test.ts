import assert from "node:assert/strict";
import { test } from "node:test";
import { manualClock } from "../testing/manual-clock.ts";
import { LiveLines, progressBar, redraw } from "./progress-bar.ts";

test("the bar fills in thirtieths and shows the whole percent, clamped to 0–100", () => {
  assert.equal(progressBar(0.5), `[${"#".repeat(15)}${"-".repeat(15)}]  50%`);
  assert.equal(progressBar(0.999), `[${"#".repeat(30)}]  99%`);
  assert.equal(progressBar(2), `[${"#".repeat(30)}] 100%`);
  assert.equal(progressBar(-1), `[${"-".repeat(30)}]   0%`);
});

test("a redraw goes up over the lines drawn before, clears each, and clears what a longer drawing left", () => {
  assert.equal(redraw(0, ["a"]), "\x1b[2Ka\n");
  assert.equal(redraw(2, ["a", "b"]), "\x1b[2F\x1b[2Ka\n\x1b[2Kb\n");
  assert.equal(redraw(3, ["a"]), "\x1b[3F\x1b[2Ka\n\x1b[2K\n\x1b[2K\n\x1b[2F");
});

test("live lines: cut to the terminal's width, throttled unless forced, notes kept above them", () => {
  let written = "";
  const clock = manualClock(0);
  const stream = Object.assign({ write: (chunk: string) => ((written += chunk), true) }, { columns: 6 }) as unknown as NodeJS.WritableStream;
  const live = new LiveLines(stream, { now: clock.now, minIntervalMs: 100 });
  live.draw(["abcdefgh"]);
  assert.equal(written, "\x1b[2Kabcde\n");
  written = "";
  clock.set(50);
  live.draw(["x"], false);
  assert.equal(written, "", "too soon after the last drawing");
  clock.set(150);
  live.draw(["y"], false);
  assert.equal(written, "\x1b[1F\x1b[2Ky\n");
  written = "";
  live.note("note");
  assert.equal(written, "\x1b[1F\x1b[2Knote\n\x1b[2Ky\n", "the note replaces the live line, which is drawn again below it");
});
