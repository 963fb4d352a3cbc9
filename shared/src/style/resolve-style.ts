import type { PresetId } from "../api/preset.ts";
import type { Style } from "../api/style.ts";
import { getPreset } from "../presets/catalog.ts";
import { fontSizeFor } from "../presets/font-size.ts";
import type { ResolvedStyle } from "./resolved-style.ts";

/** Width of the caption canvas that font sizes, outlines and shadows are given on. */
export const CAPTION_CANVAS_WIDTH = 1080;
/** Base scale a landscape video gets unless the request sets `scale`. */
export const LANDSCAPE_SCALE = 0.55;
/** Inset added on the placement edge for `top`/`bottom`, as a fraction of the video height. */
export const PLACEMENT_INSET = { portrait: 0.2, landscape: 0.14 } as const;

const OFFSET_LIMIT = 1920;

export interface VideoSize {
  width: number;
  height: number;
}

export interface ResolveStyleInput {
  preset: PresetId;
  style?: Style;
  video: VideoSize;
}

/**
 * The style a video is rendered with: the preset's defaults, adapted to the video's shape, with only the
 * supplied properties applied (nested groups field by field; explicit 0 and false are overrides).
 */
export function resolveStyle({ preset: presetId, style = {}, video }: ResolveStyleInput): ResolvedStyle {
  if (!Number.isInteger(video.width) || !Number.isInteger(video.height) || video.width < 1 || video.height < 1) {
    throw new RangeError(`video size must be positive integers, got ${video.width}x${video.height}`);
  }
  const preset = getPreset(presetId);
  const defaults = preset.defaults;
  const landscape = video.width > video.height;

  const position = style.position ?? defaults.position;
  const fontFamily = style.font_family ?? defaults.font_family;
  const textWidth = style.text_width ?? (landscape ? "large" : defaults.text_width);
  const scale = style.scale ?? (landscape ? LANDSCAPE_SCALE : defaults.scale);

  // Presets carry no top/bottom offset (it depends on the height), so the placement edge starts from the inset.
  const inset = Math.round(video.height * (landscape ? PLACEMENT_INSET.landscape : PLACEMENT_INSET.portrait));
  const offset = {
    left: style.offset?.left ?? defaults.offset.left,
    right: style.offset?.right ?? defaults.offset.right,
    top: style.offset?.top ?? clampOffset(position === "top" ? inset : 0),
    bottom: style.offset?.bottom ?? clampOffset(position === "bottom" ? inset : 0),
  };

  return {
    preset: presetId,
    animation: preset.animation,
    video: { width: video.width, height: video.height },
    position,
    horizontal_position: style.horizontal_position ?? defaults.horizontal_position,
    text_alignment: style.text_alignment ?? defaults.text_alignment,
    text_color: style.text_color ?? defaults.text_color,
    highlight_color: style.highlight_color ?? defaults.highlight_color,
    font_family: fontFamily,
    font_size: style.font_size ?? fontSizeFor(fontFamily, textWidth),
    font_weight: style.font_weight ?? defaults.font_weight,
    font_style: style.font_style ?? defaults.font_style,
    text_case: style.text_case ?? defaults.text_case,
    text_width: textWidth,
    line_count: style.line_count ?? defaults.line_count,
    scale,
    offset,
    background: overlay(defaults.background, style.background),
    outline: overlay(defaults.outline, style.outline),
    shadow: overlay(defaults.shadow, style.shadow),
    final_scale: (scale * video.width) / CAPTION_CANVAS_WIDTH,
  };
}

/** A copy of `base` with the fields `supplied` sets; keys `base` does not have are not carried over. */
function overlay<T extends object>(base: T, supplied: Partial<T> | undefined): T {
  const result = { ...base };
  if (supplied === undefined) return result;
  for (const key of Object.keys(base) as (keyof T)[]) {
    const value = supplied[key];
    if (value !== undefined) result[key] = value as T[keyof T];
  }
  return result;
}

// Only reachable for videos taller than 9600 px, beyond the service's limits; keeps the output valid.
function clampOffset(value: number): number {
  return Math.min(OFFSET_LIMIT, Math.max(-OFFSET_LIMIT, value));
}
