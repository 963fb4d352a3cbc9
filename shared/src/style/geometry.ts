import type { ResolvedStyle } from "./resolved-style.ts";

export interface Vector {
  x: number;
  y: number;
}

/**
 * Shadow displacement (same unit as `distance`, +x right, +y down): angle 0 points down, 90 right.
 * x = distance·sin(angle), y = distance·cos(angle).
 */
export function shadowOffset(shadow: Pick<ResolvedStyle["shadow"], "distance" | "angle">): Vector {
  const radians = (shadow.angle * Math.PI) / 180;
  return { x: withoutFloatNoise(shadow.distance * Math.sin(radians)), y: withoutFloatNoise(shadow.distance * Math.cos(radians)) };
}

/** Movement of the caption block in output pixels (+x right, +y down): left − right, top − bottom. */
export function blockShift(style: Pick<ResolvedStyle, "offset">): Vector {
  return { x: style.offset.left - style.offset.right, y: style.offset.top - style.offset.bottom };
}

// sin(180°) is 1.2e-16, not 0: axis-aligned shadows should land exactly on the axis.
function withoutFloatNoise(value: number): number {
  const rounded = Math.round(value * 1e9) / 1e9;
  return rounded === 0 ? 0 : rounded;
}
