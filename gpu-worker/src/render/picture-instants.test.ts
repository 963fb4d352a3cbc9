import assert from "node:assert/strict";
import { test } from "node:test";
import { resolveStyle } from "@caption/shared/style/resolve-style";
import { captionCoverage, posterInstant, stripInstants } from "./picture-instants.ts";
import { planCaptions } from "./render-video.ts";
import { buildStyledCues } from "./styled-cues.ts";

const words = (text: string, from: number) => text.split(" ").map((word, i) => ({ text: word, start: from + i * 0.4, end: from + i * 0.4 + 0.35 }));
const timeline = (preset: "classic" | "smash", timed: { text: string; start: number; end: number }[], durationSeconds: number) => {
  const style = resolveStyle({ preset, video: { width: 540, height: 960 } });
  const { layouts } = planCaptions(buildStyledCues(timed, style, durationSeconds), style, durationSeconds);
  return { layouts, style, durationSeconds, frameRate: 30 };
};

test("the poster is the moment of the first 10 s with the most caption, not a later fuller one", () => {
  // A short sentence, a long one within 10 s, and a longer one after.
  const t = timeline("classic", [...words("Hi there.", 0.5), ...words("This one holds the most words of all.", 3), ...words("But this sentence after ten seconds holds even more of them.", 12)], 20);
  const at = posterInstant(t);
  assert.ok(at >= 3 && at < 10, `${at}`);
  assert.ok(captionCoverage(t, at) > captionCoverage(t, 1), "more caption than the first sentence");
});

test("a preset that reveals words one by one is caught once its cue has shown them all", () => {
  const t = timeline("smash", words("one two three", 1), 5);
  const at = posterInstant(t);
  assert.ok(at >= 1.8, `${at}: after the last word has popped in`);
});

test("without a caption in the first 10 s the poster is the first caption's fullest moment; without any, the window's middle", () => {
  const late = timeline("classic", words("late words", 15), 20);
  assert.ok(posterInstant(late) >= 15);
  assert.equal(posterInstant(timeline("classic", [], 4)), 2);
});

test("the strip takes each eighth's middle, or the moment of that eighth with a caption", () => {
  // Words only in the second half: the first four eighths show none, the others find theirs.
  const t = timeline("classic", words("the second half speaks these words until the very end of it all", 7.2), 14);
  const instants = stripInstants(t);
  assert.equal(instants.length, 8);
  assert.deepEqual(instants.slice(0, 4), [0.875, 2.625, 4.375, 6.125]);
  for (const at of instants.slice(4)) assert.ok(captionCoverage(t, at) > 0, `${at}`);
});
