import type { FontFamily } from "@caption/shared/api/style";
import { plainAssLook, type AssTransition, type AssWordLook } from "../../render/animations/ass-look.ts";
import type { AssWord } from "./ass-states.ts";
import { alphaByte, assEscape, assNumber, assTagAlpha, assTagColor } from "./ass-format.ts";

/**
 * The layers a caption is drawn in, bottom up, each with its own ASS style: the background box, the active-word
 * box, the blurred shadow (libass would blur the text with it, so it is drawn apart from invisible glyphs) and
 * the text. One event per layer and state; all carry the same text and size tags, so their glyphs line up.
 */
export type AssLayer = "background" | "word-box" | "shadow" | "text";

export interface LayerText {
  family: FontFamily;
  /** The style's text colour (karaoke words keep the style's colours: they fill from it to the highlight). */
  textColor: string;
  bold: boolean;
  /** Family name of the light face for the thin weight, null where there is none. */
  thinFace: string | null;
  /** Outline width in pixels, 0 for none. */
  outlinePx: number;
  /** Opacity of the caption background. */
  backgroundOpacity: number;
}

/** The dialogue text of one event on one layer; `timed` when it changes during the event (`\t`, `\kf`). */
export function assEventText(words: readonly AssWord[], layer: AssLayer, context: LayerText): { text: string; timed: boolean } {
  // What the layer's style draws without tags.
  let current = tagsFor(plainAssLook(context.textColor), layer, context);
  let currentTransitions = "";
  let animated = new Set<string>();
  let karaokeCs = 0;
  let timed = false;
  let text = "";
  // Sets the tags that differ, and those a transition of the previous word left mid-way.
  const switchTo = (look: AssWordLook): string => {
    const wanted = tagsFor(look, layer, context);
    const transitions = look.transitions.map((t) => transitionTag(t, look, layer, context)).join("");
    const restate = transitions !== currentTransitions;
    const changed = [...wanted].filter(([name, tag]) => current.get(name) !== tag || (restate && animated.has(name))).map(([, tag]) => tag);
    current = wanted;
    currentTransitions = transitions;
    animated = new Set(look.transitions.flatMap((t) => [...(t.scale !== undefined ? ["scale"] : []), ...(t.opacity !== undefined ? ["alpha"] : [])]));
    if (transitions !== "") timed = true;
    return changed.join("") + (restate ? transitions : "");
  };

  words.forEach((word, i) => {
    const previous = words[i - 1];
    const fill = layer === "text" ? word.look.fill : null;
    let before = "";
    let tags = "";
    if (fill !== null) {
      // Karaoke syllables run back to back: a silence before the word is an empty syllable, spaces included.
      const startCs = Math.max(karaokeCs, Math.round(fill.startMs / 10));
      const endCs = Math.max(startCs, Math.round(fill.endMs / 10));
      if (startCs > karaokeCs) before = `\\k${startCs - karaokeCs}`;
      tags = `\\kf${endCs - startCs}`;
      karaokeCs = endCs;
      timed = true;
    }
    if (previous !== undefined) {
      // The active-word box must not reach over the space after its word.
      if (layer === "word-box") before += switchTo({ ...previous.look, boxed: false });
      text += block(before) + (word.line !== previous.line ? "\\N" : " ");
      before = "";
    }
    text += block(before + switchTo(word.look) + tags) + assEscape(word.display);
  });
  return { text, timed };
}

function block(tags: string): string {
  return tags === "" ? "" : `{${tags}}`;
}

/** Override tags of a look on a layer, by what they set. Size and face go on every layer so all lay out alike. */
function tagsFor(look: AssWordLook, layer: AssLayer, context: LayerText): Map<string, string> {
  const tags = new Map<string, string>();
  const face = look.weight === "thin" ? (context.thinFace ?? context.family) : context.family;
  const bold = look.weight === null ? context.bold : look.weight === "bold";
  tags.set("face", `\\fn${face}\\b${bold ? 1 : 0}`);
  tags.set("scale", scaleTag(look.scale));
  const alpha = alphaTag(look.opacity, layer, look.carriesBackground, context);
  if (alpha !== "") tags.set("alpha", alpha);
  switch (layer) {
    case "text":
      if (look.fill === null) tags.set("color", `\\c${assTagColor(look.color)}`);
      if (context.outlinePx > 0) tags.set("outline", `\\bord${assNumber(context.outlinePx * look.outlineScale)}`);
      break;
    case "shadow":
      if (context.outlinePx > 0) tags.set("outline", `\\bord${assNumber(context.outlinePx * look.outlineScale)}`);
      break;
    case "word-box":
      tags.set("box", `\\3a${assTagAlpha(look.boxed ? 0 : 255)}`);
      break;
    case "background":
      break;
  }
  return tags;
}

/** What opacity means on a layer: all of the text, only the shadow, or the background where it follows the word. */
function alphaTag(opacity: number, layer: AssLayer, carriesBackground: boolean, context: LayerText): string {
  switch (layer) {
    case "text":
      return `\\alpha${assTagAlpha(alphaByte(opacity))}`;
    case "shadow":
      return `\\4a${assTagAlpha(alphaByte(opacity))}`;
    case "background":
      return `\\3a${assTagAlpha(alphaByte(context.backgroundOpacity * (carriesBackground ? opacity : 1)))}`;
    case "word-box":
      return "";
  }
}

function transitionTag(transition: AssTransition, look: AssWordLook, layer: AssLayer, context: LayerText): string {
  let tags = "";
  if (transition.scale !== undefined) tags += scaleTag(transition.scale);
  // A background that stays for the whole cue does not fade with the word.
  const fades = layer !== "background" || look.carriesBackground;
  if (transition.opacity !== undefined && fades) tags += alphaTag(transition.opacity, layer, look.carriesBackground, context);
  return tags === "" ? "" : `\\t(${Math.round(transition.fromMs)},${Math.round(transition.toMs)},${tags})`;
}

function scaleTag(scale: number): string {
  const percent = assNumber(scale * 100);
  return `\\fscx${percent}\\fscy${percent}`;
}
