import type { ResolvedStyle } from "@caption/shared/style/resolved-style";
import { blockShift } from "@caption/shared/style/geometry";
import { animationFor } from "../../render/animations/animation-for.ts";
import type { AssFace } from "../../render/animations/ass-look.ts";
import type { CaptionAnimation } from "../../render/animations/caption-animation.ts";
import { captionGeometry, type CaptionGeometry } from "../../render/caption-geometry.ts";
import { skiaFontMeasure, type FontMeasure } from "../../render/font-measure.ts";
import type { Cue } from "../../render/cue-builder.ts";
import { assStates } from "./ass-states.ts";
import { assEventText, type AssLayer, type LayerText } from "./ass-event-text.ts";
import { assFontSize, THIN_FACE_NAMES, WIN_METRICS_EM } from "./ass-fonts.ts";
import { alphaByte, assNumber, assStyleColor, assTime, centiseconds } from "./ass-format.ts";

const STYLE_FORMAT =
  "Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, Underline, StrikeOut, " +
  "ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, Encoding";
const EVENT_FORMAT = "Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text";

// libass blurs with a Gaussian of σ = 2/√ln 256 ≈ 0.85 px per `\blur` unit (measured: \blur20 gave σ 16.9 px);
// a canvas shadowBlur b is a Gaussian of σ = b/2.
const LIBASS_BLUR_SIGMA = 2 / Math.sqrt(Math.log(256));
// libass draws no shadow at offset (0, 0); a hundredth of a pixel keeps a centred glow and moves nothing.
const MIN_SHADOW_OFFSET = 0.01;
// ASS BorderStyle: 1 outline and drop shadow, 3 opaque box (in OutlineColour, `\xbord`/`\ybord` around the text).
const OUTLINE = 1;
const OPAQUE_BOX = 3;

interface LayerSpec {
  layer: AssLayer;
  style: string;
  /** Event-level override tags every event of the layer starts with. */
  prefix: string;
}

interface Placement {
  /** Numpad position: 1-3 bottom, 4-6 middle, 7-9 top; left, centre, right. */
  alignment: number;
  marginL: number;
  marginR: number;
  marginV: number;
  /** `\pos` where margins cannot say it (a middle caption moved up or down, a block pushed past the edge). */
  pos: string;
}

interface AssEvent {
  layer: number;
  style: string;
  startCs: number;
  endCs: number;
  text: string;
}

/**
 * A complete ASS script of `cues` drawn in `style`, for burning in with libass: the same words, line breaks,
 * times, font, size, colours, outline, shadow, background and placement as our renderer, and its animation
 * as far as ASS override tags can express it (its ASS face, render/animations/ass-look.ts; by default the style's
 * own animation).
 * Sizes: ASS `Fontsize` is scaled by the font's OS/2 win height (ass-fonts.ts) so glyphs are as tall as ours.
 * Known differences: libass spaces lines by the win height (ours: the font's ascent + descent, at least 1.15 em;
 * the line at the anchored edge is placed like ours),
 * boxes are square and follow each line (our `box` background spans the block), lines align with the block's
 * side (our `text_alignment` can differ from `horizontal_position`), and a cue too wide for the frame is not
 * shrunk to fit.
 */
export function assSubtitles(cues: readonly Cue[], style: ResolvedStyle, animation: CaptionAnimation = animationFor(style.animation)): string {
  const face = animation.ass;
  const geometry = captionGeometry(style);
  const placement = placementFor(style, geometry, skiaFontMeasure(style));
  const layers = layersFor(face, style, geometry);
  const styleLines = layers.map((spec) => styleLine(spec, face, style, geometry, placement));
  const context: LayerText = {
    family: style.font_family,
    textColor: style.text_color,
    bold: style.font_weight === 700,
    thinFace: THIN_FACE_NAMES[style.font_family] ?? null,
    outlinePx: geometry.outlineWidth,
    backgroundOpacity: style.background.opacity,
  };

  const shown = cues
    .filter((cue) => cue.end > cue.start && cue.lines.some((line) => line.words.length > 0))
    .sort((a, b) => a.start - b.start);
  const events: AssEvent[] = [];
  shown.forEach((cue, c) => {
    // Events never reach into the next cue: libass would stack the two instead of replacing one by the other.
    const limitCs = centiseconds(shown[c + 1]?.start ?? Number.POSITIVE_INFINITY);
    const states = assStates(cue, style, face);
    layers.forEach((spec, layer) => {
      let previous: (AssEvent & { timed: boolean }) | null = null;
      for (const state of states) {
        const { text, timed } = assEventText(state.words, spec.layer, context);
        const startCs = Math.min(centiseconds(state.start), limitCs);
        const endCs = Math.min(centiseconds(state.end), limitCs);
        if (endCs <= startCs) continue;
        if (previous !== null && !previous.timed && !timed && previous.text === text && previous.endCs === startCs) {
          previous.endCs = endCs;
          continue;
        }
        const prefix = placement.pos + spec.prefix;
        previous = { layer, style: spec.style, startCs, endCs, text: (prefix === "" ? "" : `{${prefix}}`) + text, timed };
        events.push(previous);
      }
    });
  });
  events.sort((a, b) => a.startCs - b.startCs || a.layer - b.layer);

  return [
    "[Script Info]",
    "; Captions of the caption service: the cues, look and animation of the captioned video, for libass and subtitle editors",
    "ScriptType: v4.00+",
    `PlayResX: ${style.video.width}`,
    `PlayResY: ${style.video.height}`,
    // Only \N breaks lines: the cue builder already chose them.
    "WrapStyle: 2",
    "ScaledBorderAndShadow: yes",
    "",
    "[V4+ Styles]",
    `Format: ${STYLE_FORMAT}`,
    ...styleLines,
    "",
    "[Events]",
    `Format: ${EVENT_FORMAT}`,
    ...events.map((e) => `Dialogue: ${e.layer},${assTime(e.startCs)},${assTime(e.endCs)},${e.style},,0,0,0,,${e.text}`),
    "",
  ].join("\n");
}

/** The layers the style needs, bottom up. */
function layersFor(face: AssFace, style: ResolvedStyle, geometry: CaptionGeometry): LayerSpec[] {
  const layers: LayerSpec[] = [];
  if (geometry.background !== null && style.background.opacity > 0) {
    layers.push({ layer: "background", style: "Background", prefix: `\\xbord${assNumber(geometry.background.padX)}\\ybord${assNumber(geometry.background.padY)}` });
  }
  if (face.boxPadXEm !== undefined) {
    layers.push({ layer: "word-box", style: "WordBox", prefix: `\\xbord${assNumber(face.boxPadXEm * geometry.fontPx)}\\ybord0` });
  }
  const shadow = geometry.shadow;
  let textPrefix = "";
  if (shadow !== null) {
    const offset = shadow.dx === 0 && shadow.dy === 0 ? `\\xshad0\\yshad${MIN_SHADOW_OFFSET}` : `\\xshad${assNumber(shadow.dx)}\\yshad${assNumber(shadow.dy)}`;
    if (shadow.blur > 0) {
      layers.push({ layer: "shadow", style: "Shadow", prefix: `${offset}\\blur${assNumber(shadow.blur / 2 / LIBASS_BLUR_SIGMA)}` });
    } else {
      textPrefix = offset;
    }
  }
  layers.push({ layer: "text", style: "Text", prefix: textPrefix });
  return layers;
}

function styleLine(spec: LayerSpec, face: AssFace, style: ResolvedStyle, geometry: CaptionGeometry, placement: Placement): string {
  const invisible = assStyleColor("#000000", 255);
  const shadow = geometry.shadow;
  const shadowDistance = shadow === null ? 0 : Math.max(Math.hypot(shadow.dx, shadow.dy), MIN_SHADOW_OFFSET);
  let colours: [string, string, string, string];
  let borderStyle = OUTLINE;
  let outline = geometry.outlineWidth;
  let shadowDepth = 0;
  switch (spec.layer) {
    case "text": {
      // Karaoke fills from SecondaryColour to PrimaryColour.
      const primary = face.fills === true ? style.highlight_color : style.text_color;
      colours = [assStyleColor(primary), assStyleColor(style.text_color), assStyleColor(style.outline.color), assStyleColor(style.shadow.color)];
      if (shadow !== null && shadow.blur === 0) shadowDepth = shadowDistance;
      break;
    }
    case "shadow":
      // libass casts no shadow from an invisible fill: the fill is 1/255 opaque, in the shadow's colour.
      colours = [assStyleColor(style.shadow.color, 254), invisible, invisible, assStyleColor(style.shadow.color)];
      shadowDepth = shadowDistance;
      break;
    case "background":
      colours = [invisible, invisible, assStyleColor(style.background.color, alphaByte(style.background.opacity)), invisible];
      borderStyle = OPAQUE_BOX;
      outline = geometry.background?.padY ?? 0;
      break;
    case "word-box":
      // Shown behind the active word only, by `\3a`.
      colours = [invisible, invisible, assStyleColor(style.highlight_color, 255), invisible];
      borderStyle = OPAQUE_BOX;
      outline = 0;
      break;
  }
  return `Style: ${[
    spec.style,
    style.font_family,
    assNumber(assFontSize(style.font_family, geometry.fontPx)),
    ...colours,
    style.font_weight === 700 ? -1 : 0,
    style.font_style === "italic" ? -1 : 0,
    0,
    0,
    100,
    100,
    0,
    0,
    borderStyle,
    assNumber(outline),
    assNumber(shadowDepth),
    placement.alignment,
    placement.marginL,
    placement.marginR,
    placement.marginV,
    1,
  ].join(",")}`;
}

/**
 * Where our layout puts the block, as ASS alignment and margins: the anchor is the block's bottom, middle or top
 * edge at its left, centre or right (caption-layout.ts), moved by the style's offsets. Our line box is the
 * font's ascent and descent as Skia measures them, libass's the win metrics: the edge moves by the difference,
 * so the baseline of the line at the anchored edge lands where ours does.
 */
function placementFor(style: ResolvedStyle, geometry: CaptionGeometry, ours: Pick<FontMeasure, "ascent" | "descent">): Placement {
  const { width, height } = style.video;
  const shift = blockShift(style);
  const win = WIN_METRICS_EM[style.font_family];
  const margin = Math.round(geometry.margin);
  const row = { bottom: 0, center: 3, top: 6 }[style.position];
  const column = { left: 1, center: 2, right: 3 }[style.horizontal_position];
  const x = { left: geometry.margin, center: width / 2, right: width - geometry.margin }[style.horizontal_position] + shift.x;
  const edge = {
    bottom: height + (win.descent - ours.descent) * geometry.fontPx,
    center: height / 2,
    top: (ours.ascent - win.ascent) * geometry.fontPx,
  }[style.position];
  const y = edge + shift.y;

  let marginL = margin;
  let marginR = margin;
  switch (style.horizontal_position) {
    case "left":
      marginL = Math.round(x);
      break;
    case "right":
      marginR = Math.round(width - x);
      break;
    case "center":
      // Centred between the margins: moving the centre by dx takes a difference of 2·dx.
      marginL = margin + Math.round(Math.max(0, 2 * shift.x));
      marginR = margin + Math.round(Math.max(0, -2 * shift.x));
      break;
  }
  // libass centres middle captions on the frame whatever MarginV says.
  const marginV = style.position === "center" ? 0 : Math.round(style.position === "bottom" ? height - y : y);
  const expressible = (style.position !== "center" || shift.y === 0) && marginL >= 0 && marginR >= 0 && marginV >= 0;
  return {
    alignment: row + column,
    marginL: Math.max(0, marginL),
    marginR: Math.max(0, marginR),
    marginV: Math.max(0, marginV),
    pos: expressible ? "" : `\\pos(${assNumber(x)},${assNumber(y)})`,
  };
}
