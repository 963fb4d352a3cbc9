import type { PresetId } from "@caption/shared/api/preset";
import type { Style } from "@caption/shared/api/style";
import type { Word } from "@caption/shared/api/transcript";
import { resolveStyle, type VideoSize } from "@caption/shared/style/resolve-style";
import type { ResolvedStyle } from "@caption/shared/style/resolved-style";
import { animationFor } from "../render/animations/animation-for.ts";
import { planCaptions } from "../render/render-video.ts";
import { CaptionPainter } from "../render/caption-painter.ts";
import type { Band } from "../render/band-layout.ts";
import type { CueLayout } from "../render/caption-layout.ts";
import type { RgbaImage } from "../render/rgba-image.ts";
import { buildStyledCues } from "../render/styled-cues.ts";

export const ORIENTATIONS = {
  portrait: { width: 1080, height: 1920 },
  landscape: { width: 1920, height: 1080 },
} as const satisfies Record<string, VideoSize>;
export type Orientation = keyof typeof ORIENTATIONS;

const SAMPLE_TEXT = "Watch these captions follow every single word you speak out loud";
const WORD_SECONDS = 0.4;
const WORD_GAP = 0.05;

/** Fixed words, 0.4 s each with 0.05 s pauses from 0.5 s: the same picture on every run. */
export const SAMPLE_WORDS: readonly Word[] = SAMPLE_TEXT.split(" ").map((text, i) => {
  const start = 0.5 + i * (WORD_SECONDS + WORD_GAP);
  return { text, start: round(start), end: round(start + WORD_SECONDS) };
});

/**
 * The sample instant: 0.32 s into the sixth word ("single"), when pops, floats and fades have settled and a
 * karaoke fill is most of the way through the word.
 */
export const SAMPLE_TIME = round(SAMPLE_WORDS[5]!.start + 0.32);

/** Long enough for every sample word and a second after the last. */
export const SAMPLE_DURATION = round(SAMPLE_WORDS.at(-1)!.end + 1);

/** A flat mid-tone backdrop, light and dark text both readable on it; flat so PNGs of it stay small. */
export const BACKDROP: readonly [number, number, number] = [0x5b, 0x6b, 0x7f];

export interface SampleFrame {
  image: RgbaImage;
  style: ResolvedStyle;
  layout: CueLayout | null;
  band: Band;
}

/** The style a preset renders the sample with at a video size, with optional request overrides. */
export function sampleStyle(preset: PresetId, video: VideoSize, style?: Style): ResolvedStyle {
  return resolveStyle({ preset, style, video });
}

/**
 * One video frame of the sample captions at `t` through the real cue builder, layout and painter, laid over
 * the flat backdrop: opaque RGBA of the whole frame.
 */
export function paintSampleFrame(style: ResolvedStyle, t: number = SAMPLE_TIME, words: readonly Word[] = SAMPLE_WORDS): SampleFrame {
  const cues = buildStyledCues(words, style, SAMPLE_DURATION);
  const { layouts, band } = planCaptions(cues, style, SAMPLE_DURATION);
  const layout = layouts.find((l) => l.cue.start <= t && t < l.cue.end) ?? null;
  const painter = new CaptionPainter(style, band, animationFor(style.animation));
  const captions = painter.paint(layout, t);
  const { width, height } = style.video;
  const data = new Uint8ClampedArray(width * height * 4);
  for (let i = 0; i < data.length; i += 4) {
    data[i] = BACKDROP[0];
    data[i + 1] = BACKDROP[1];
    data[i + 2] = BACKDROP[2];
    data[i + 3] = 255;
  }
  // Straight-alpha "over" onto an opaque backdrop: out = src·a + dst·(1 − a).
  for (let row = 0; row < band.height; row++) {
    for (let column = 0; column < band.width; column++) {
      const i = (row * band.width + column) * 4;
      const a = captions[i + 3]! / 255;
      if (a === 0) continue;
      const o = ((band.y + row) * width + band.x + column) * 4;
      for (let c = 0; c < 3; c++) data[o + c] = captions[i + c]! * a + data[o + c]! * (1 - a);
    }
  }
  return { image: { width, height, data }, style, layout, band };
}

function round(seconds: number): number {
  return Math.round(seconds * 1000) / 1000;
}
