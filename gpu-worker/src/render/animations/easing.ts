// Easing curves: how far a motion has got, 0 to 1, by the fraction of its time gone.

/** 0 at `start`, 1 after `duration` seconds, clamped. */
export function progress(t: number, start: number, duration: number): number {
  return Math.min(1, Math.max(0, (t - start) / duration));
}

export const easeOutCubic = (p: number) => 1 - (1 - p) ** 3;

const BACK_C1 = 1.70158;
const BACK_C3 = BACK_C1 + 1;

/** Overshoots past 1 before settling: a pop. */
export function easeOutBack(p: number): number {
  if (p <= 0 || p >= 1) return p <= 0 ? 0 : 1;
  return 1 + BACK_C3 * (p - 1) ** 3 + BACK_C1 * (p - 1) ** 2;
}

/** Where easeOutBack peaks (its derivative is 0), about 58 % of the way. */
export const EASE_OUT_BACK_PEAK_AT = 1 - (2 * BACK_C1) / (3 * BACK_C3);
/** The highest value easeOutBack reaches, about 1.1. */
export const EASE_OUT_BACK_PEAK = easeOutBack(EASE_OUT_BACK_PEAK_AT);
