import { Type, type Static } from "@sinclair/typebox";
import { LiteralUnion } from "./style.ts";

/**
 * What a job renders: the captions burned into the video, a transparent video of the captions alone for an
 * editor's timeline, or both. The same charge whatever the kind.
 */
export const OUTPUT_KINDS = ["burned", "overlay", "both"] as const;
export type OutputKind = (typeof OUTPUT_KINDS)[number];

export const OutputSchema = Type.Object(
  {
    kind: LiteralUnion(OUTPUT_KINDS, {
      description:
        "burned: the captioned MP4 (video.url). overlay: the captions alone with alpha (video.overlay_urls: VP9 WebM and ProRes 4444 MOV) and, as video.url, the uncaptioned video as MP4 (video.captioned false). both: all of them",
    }),
  },
  { additionalProperties: false, $id: "Output", description: "Omitted: burned" },
);
export type Output = Static<typeof OutputSchema>;

/** Whether a kind includes the burned MP4, and the transparent overlay. */
export const burnsCaptions = (kind: OutputKind): boolean => kind !== "overlay";
export const makesOverlay = (kind: OutputKind): boolean => kind !== "burned";
