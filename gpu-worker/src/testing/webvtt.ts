import webvtt from "webvtt-parser";
import type { TreeNode, TreeNodeObjectTagNameWithRt } from "webvtt-parser";

type Node = TreeNode<TreeNodeObjectTagNameWithRt>;

export interface ParsedVttCue {
  start: number;
  end: number;
  /** The cue text as a player shows it: markup gone, character references decoded. */
  text: string;
  /** The cue timestamp tags inside the cue (seconds), in order. */
  timestamps: number[];
}

// webvtt-parser 2.2.0's default table names the references without their ";" and then keeps the ";" as
// text; the names as HTML spells them decode right.
const CHARACTER_REFERENCES = { "&amp;": "&", "&lt;": "<", "&gt;": ">" } as const;

const textOf = (nodes: readonly Node[]): string => nodes.map((node) => (node.type === "text" ? node.value : node.type === "object" ? textOf(node.children) : "")).join("");
const timestampsOf = (nodes: readonly Node[]): number[] =>
  nodes.flatMap((node) => (node.type === "timestamp" ? [node.value] : node.type === "object" ? timestampsOf(node.children) : []));

/**
 * Parses WebVTT with the W3C's parser (the one behind its validator), which reports every deviation
 * from the specification, cue text included; throws when it reports any.
 */
export function parseWebVtt(text: string): ParsedVttCue[] {
  const parsed = new webvtt.WebVTTParser(CHARACTER_REFERENCES).parse(text, "subtitles");
  if (parsed.errors.length > 0) {
    throw new Error(`invalid WebVTT: ${parsed.errors.map((error) => `line ${error.line}:${error.col} ${error.message}`).join("; ")}`);
  }
  return parsed.cues.map((cue) => ({ start: cue.startTime, end: cue.endTime, text: textOf(cue.tree.children), timestamps: timestampsOf(cue.tree.children) }));
}
