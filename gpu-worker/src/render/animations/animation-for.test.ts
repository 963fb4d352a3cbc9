import { test } from "node:test";
import assert from "node:assert/strict";
import { ANIMATIONS, PRESET_IDS, type PresetId } from "@caption/shared/api/preset";
import { resolveStyle } from "@caption/shared/style/resolve-style";
import { layoutCue, type CueLayout } from "../caption-layout.ts";
import type { FontMeasure } from "../font-measure.ts";
import type { Cue } from "../cue-builder.ts";
import { animationFor } from "./animation-for.ts";
import type { CaptionFrame } from "./caption-animation.ts";

const halfEm: FontMeasure = { width: (text, px) => text.length * px * 0.5, ascent: 1, descent: 0.25 };
const video = { width: 1080, height: 1920 };
const STEP = 1 / 30;

// Three words on two lines: "one two" / "three", spoken at 1.0, 1.5, 2.0 for 0.4 s each; cue 1.0–2.6.
const cue: Cue = {
  start: 1,
  end: 2.6,
  lines: [
    { words: [{ text: "one", start: 1, end: 1.4 }, { text: "two", start: 1.5, end: 1.9 }] },
    { words: [{ text: "three", start: 2, end: 2.4 }] },
  ],
};

function setup(preset: PresetId) {
  const style = resolveStyle({ preset, video });
  const animation = animationFor(style.animation);
  const layout = layoutCue(cue, style, halfEm, animation);
  return { style, animation, layout, at: (t: number): CaptionFrame => animation.frame(layout, t, style) };
}

for (const animation of ANIMATIONS) {
  test(`${animation}: change times start at the cue, ascend and stay inside it; one look per word`, () => {
    const preset = PRESET_IDS.find((id) => resolveStyle({ preset: id, video }).animation === animation) ?? "classic";
    const { layout, at, animation: module } = setup(preset);
    const times = module.changeTimes(layout, STEP);
    assert.equal(times[0], cue.start);
    for (let i = 1; i < times.length; i++) assert.ok(times[i]! > times[i - 1]! && times[i]! < cue.end);
    for (const t of [1, 1.2, 1.7, 2.5]) assert.equal(at(t).words.length, 3);
    // Between change times more than a frame apart the picture holds still.
    for (let i = 0; i < times.length; i++) {
      const from = times[i]!;
      const to = times[i + 1] ?? cue.end;
      if (to - from > STEP + 1e-9) assert.deepEqual(at(from + (to - from) * 0.99), at(from), `${animation} moves between ${from} and ${to}`);
    }
  });
}

const colors = (frame: CaptionFrame) => frame.words.map((w) => w.color);

test("none: every word plain and visible for the whole cue", () => {
  const { at, style } = setup("classic");
  for (const t of [1, 1.7, 2.59]) assert.deepEqual(colors(at(t)), Array(3).fill(style.text_color));
  assert.ok(at(1).words.every((w) => w.visible && w.opacity === 1 && w.scale === 1));
});

test("active-word-color: the spoken word, and only it, takes the highlight colour (also through pauses)", () => {
  const { at, style } = setup("highlight");
  const [t, h] = [style.text_color, style.highlight_color];
  assert.deepEqual(colors(at(1.1)), [h, t, t]);
  assert.deepEqual(colors(at(1.45)), [h, t, t]);
  assert.deepEqual(colors(at(1.6)), [t, h, t]);
  assert.deepEqual(colors(at(2.5)), [t, t, h]);
});

test("active-word-opacity: spoken words opaque, unspoken dimmed", () => {
  const { at } = setup("prompter");
  assert.deepEqual(at(1.6).words.map((w) => w.opacity), [1, 1, 0.4]);
});

test("active-word-outline: full outline on the spoken word only", () => {
  const { at } = setup("outline");
  assert.deepEqual(at(1.6).words.map((w) => w.outlineScale), [0.35, 1, 0.35]);
});

test("weight-pulse: spoken word bold, others thin", () => {
  const { at } = setup("thin&bold");
  assert.deepEqual(at(2.1).words.map((w) => w.weight), [200, 200, 700]);
});

test("scale-active: the spoken word grows to 1.15 and takes the highlight colour", () => {
  const { at, style } = setup("push");
  const frame = at(1.8);
  assert.deepEqual(frame.words.map((w) => w.scale), [1, 1.15, 1]);
  assert.equal(frame.words[1]!.color, style.highlight_color);
  assert.ok(at(1.52).words[1]!.scale > 1 && at(1.52).words[1]!.scale < 1.15);
});

test("pop-in: words hidden until spoken, then pop past full size and settle", () => {
  const { at } = setup("smash");
  assert.deepEqual(at(1.2).words.map((w) => w.visible), [true, false, false]);
  const scales = [1.5, 1.55, 1.6, 1.65, 1.7].map((t) => at(t).words[1]!.scale);
  assert.ok(scales[0]! < 1 && Math.max(...scales) > 1 && scales.at(-1) === 1, scales.join());
});

test("float-in: a word fades in while rising into place", () => {
  const { at, layout } = setup("elegant");
  const early = at(1.55).words[1]!;
  assert.ok(early.opacity > 0 && early.opacity < 1 && early.dy > 0 && early.dy < 0.4 * layout.fontPx);
  assert.deepEqual([at(1.9).words[1]!.opacity, at(1.9).words[1]!.dy], [1, 0]);
  assert.equal(at(1.9).words[2]!.visible, false);
});

test("glow-fade-in: words fade in when spoken", () => {
  const { at } = setup("glow");
  assert.deepEqual(at(1.2).words.map((w) => w.visible), [true, false, false]);
  assert.ok(at(2.05).words[2]!.opacity < 1 && at(2.3).words[2]!.opacity === 1);
});

test("progressive-fill: the fill sweeps through each word while it is spoken", () => {
  const { at, style } = setup("karaoke");
  const fractions = (t: number) => at(t).words.map((w) => w.fill?.fraction);
  assert.deepEqual(fractions(1.2), [0.5, 0, 0]);
  assert.deepEqual(fractions(1.45), [1, 0, 0]);
  assert.deepEqual(fractions(2.5), [1, 1, 1]);
  assert.equal(at(1.2).words[0]!.fill?.color, style.highlight_color);
});

test("center-pop: the whole cue scales about the block centre", () => {
  const { at, layout } = setup("ogre");
  const start = at(1);
  assert.ok(start.words.every((w) => w.scale === 0.5));
  const centreX = layout.block.x + layout.block.width / 2;
  const first = layout.words[0]!;
  assert.equal(start.words[0]!.dx, -0.5 * (first.x + first.width / 2 - centreX));
  assert.ok(at(1.5).words.every((w) => w.scale === 1 && w.dx === 0 && w.dy === 0));
});

test("slide-lines: each line, background included, slides in when its first word is spoken", () => {
  const { at } = setup("paper-ink");
  const frame = at(1.6);
  assert.deepEqual(frame.lines?.map((l) => l.visible), [true, false]);
  assert.deepEqual(frame.words.map((w) => w.visible), [true, true, false]);
  const sliding = at(2.05).lines![1]!;
  assert.ok(sliding.visible && sliding.dy > 0 && sliding.opacity < 1);
});

test("active-word-box: a highlight box behind the spoken word, sliding from the previous one", () => {
  const { at, style, layout } = setup("box");
  const box = (t: number) => at(t).boxes[0]!;
  const word = (i: number) => layout.words[i]!;
  assert.equal(box(1.2).color, style.highlight_color);
  assert.ok(box(1.2).rect.x < word(0).x && box(1.2).rect.x + box(1.2).rect.width > word(0).x + word(0).width);
  const mid = box(1.53).rect.x;
  assert.ok(mid > box(1.2).rect.x && mid < box(1.8).rect.x);
  assert.ok(box(1.8).rect.x < word(1).x && box(1.8).rect.x + box(1.8).rect.width > word(1).x + word(1).width);
});

test("ink room covers animations that reach past the block", () => {
  const still = setup("classic").layout;
  const floating = setup("elegant").layout;
  const room = (l: CueLayout) => l.ink.bottom - (l.block.y + l.block.height);
  assert.ok(room(floating) >= 0.4 * floating.fontPx && room(floating) > room(still));
});

test("scale-active: the words beside the grown word move apart, so it never runs into them", () => {
  const words = ["wide", "neighbours", "here"].map((text, i) => ({ text, start: 1 + i * 0.5, end: 1.4 + i * 0.5 }));
  const style = resolveStyle({ preset: "push", video });
  const animation = animationFor(style.animation);
  const layout = layoutCue({ start: 1, end: 2.6, lines: [{ words }] }, style, halfEm, animation);
  const frame = animation.frame(layout, 1.8, style);
  // Painted extent of each word: scaled about its centre, then shifted.
  const extents = layout.words.map((word, i) => {
    const look = frame.words[i]!;
    const centre = word.x + word.width / 2 + look.dx;
    return [centre - (look.scale * word.width) / 2, centre + (look.scale * word.width) / 2] as const;
  });
  const space = halfEm.width(" ", layout.fontPx);
  for (let i = 1; i < extents.length; i++) assert.ok(extents[i]![0] - extents[i - 1]![1] >= space - 1e-9, JSON.stringify(extents));
  assert.ok(frame.words[0]!.dx < 0 && frame.words[2]!.dx > 0);
});

test("center-pop: a tall cue at the peak of its pop stays inside the frame", () => {
  const lines = Array.from({ length: 30 }, (_, i) => ({ words: [{ text: `line${i}`, start: 1, end: 2 }] }));
  const style = resolveStyle({ preset: "ogre", style: { line_count: 100 }, video });
  const animation = animationFor(style.animation);
  const layout = layoutCue({ start: 1, end: 2, lines }, style, halfEm, animation);
  assert.ok(layout.ink.top >= 0 && layout.ink.bottom <= video.height, JSON.stringify(layout.ink));
  for (const t of animation.changeTimes(layout, STEP)) {
    const frame = animation.frame(layout, t, style);
    layout.words.forEach((word, i) => {
      const look = frame.words[i]!;
      const centre = layout.lines[word.line]!.top + layout.lineHeight / 2 + look.dy;
      assert.ok(centre - (look.scale * layout.lineHeight) / 2 >= layout.ink.top - 1e-9, `t ${t} word ${i} above the ink room`);
      assert.ok(centre + (look.scale * layout.lineHeight) / 2 <= layout.ink.bottom + 1e-9, `t ${t} word ${i} below the ink room`);
    });
  }
});
