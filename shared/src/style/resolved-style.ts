import { Type, type Static } from "@sinclair/typebox";
import { ANIMATIONS, PresetIdSchema } from "../api/preset.ts";
import { FullStyleSchema, LiteralUnion } from "../api/style.ts";

/**
 * The style a video is rendered with: every field set, offsets resolved for the video's height and
 * placement (output pixels), and the final scale (base scale × width / 1080) computed.
 * Recorded on the job and in the transcript JSON.
 */
export const ResolvedStyleSchema = Type.Composite(
  [
    FullStyleSchema,
    Type.Object({
      preset: PresetIdSchema,
      animation: LiteralUnion(ANIMATIONS),
      video: Type.Object({ width: Type.Integer({ minimum: 1 }), height: Type.Integer({ minimum: 1 }) }),
      final_scale: Type.Number({ exclusiveMinimum: 0, description: "scale × video width / 1080" }),
    }),
  ],
  { additionalProperties: false, $id: "ResolvedStyle" },
);
export type ResolvedStyle = Static<typeof ResolvedStyleSchema>;
