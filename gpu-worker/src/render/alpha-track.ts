// Which caption frames carry their alpha plane on the caption stream's second track, for the overlay WebM's
// alpha encoder: the frames whose alpha differs from the last one sent (a karaoke fill changes colours every
// frame under shapes that last a whole word), and every key frame. Key frames follow one rule on the frames
// sent, which ffmpeg's colour and alpha encoders both apply to the frames they are given (keyFrameExpression):
// the first frame, then the first frame at least `keyIntervalMs` after the last key frame. Every colour key
// frame has its alpha frame, and the alpha frames between two key frames come before the next colour one, so
// the two encoders choose the very same frames: a player seeking to a colour key frame finds an alpha key frame
// beside it, and between key frames the alpha is coded as inter frames (a glow changes it every frame).

/** The overlay WebM's key frame rule: the first frame, then the first frame at least `keyIntervalMs` after the last key frame. */
export class KeyFrameRule {
  readonly #keyIntervalMs: number;
  #lastKeyMs: number | null = null;

  constructor(keyIntervalMs: number) {
    if (!Number.isInteger(keyIntervalMs) || keyIntervalMs < 1) throw new RangeError(`Invalid key frame interval ${keyIntervalMs} ms`);
    this.#keyIntervalMs = keyIntervalMs;
  }

  /** Whether the frame sent at `ptsMs` (frames in order) is a key frame. */
  next(ptsMs: number): boolean {
    const key = this.#lastKeyMs === null || ptsMs >= this.#lastKeyMs + this.#keyIntervalMs;
    if (key) this.#lastKeyMs = ptsMs;
    return key;
  }
}

export class AlphaTrack {
  readonly #keys: KeyFrameRule;
  #last: Buffer | null = null;

  constructor(keyIntervalMs: number) {
    this.#keys = new KeyFrameRule(keyIntervalMs);
  }

  /** Whether the frame sent at `ptsMs`, with this alpha plane, must carry it (a copy is kept to compare the next with). */
  take(ptsMs: number, plane: Uint8Array): boolean {
    const key = this.#keys.next(ptsMs);
    if (!key && this.#last !== null && this.#last.equals(plane)) return false;
    if (this.#last === null || this.#last.length !== plane.byteLength) this.#last = Buffer.alloc(plane.byteLength);
    this.#last.set(plane);
    return true;
  }
}

/**
 * ffmpeg's `-force_key_frames` for AlphaTrack's rule, on an encoder whose time base is the millisecond: `t` is a
 * whole number of milliseconds, so half of one keeps the comparison off the floating point's edge.
 */
export const keyFrameExpression = (keyIntervalMs: number): string => `expr:isnan(prev_forced_t)+gte(t,prev_forced_t+${(keyIntervalMs - 0.5) / 1000})`;
