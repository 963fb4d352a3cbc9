/** A caption frame to send: shown from `ptsMs` until the next one; `cue` (an index) drawn as at `t`, or nothing. */
export interface ScheduledFrame {
  ptsMs: number;
  cue: number | null;
  t: number;
}

export interface ScheduledCue {
  start: number;
  end: number;
  /** Instants in [start, end) at which the cue's picture changes, ascending, the first being `start`. */
  changeTimes: readonly number[];
}

/**
 * The frames the caption stream needs: one per picture change (snapped to the video's frame grid), a clear
 * when a cue ends with no cue right after it, and a closing frame at the end of the video, because once the
 * stream ends ffmpeg's overlay stops showing its last frame. Cues must be in order and not overlap.
 */
export function scheduleFrames(cues: readonly ScheduledCue[], video: { durationSeconds: number; frameRate: number | null }): ScheduledFrame[] {
  const schedule = new FrameSchedule(video);
  return [...cues.flatMap((cue) => schedule.add(cue)), ...schedule.finish()];
}

/**
 * `scheduleFrames` for cues that arrive one at a time: each call hands out the frames nothing later can
 * change. Only the latest frame is held back, since the next one may land on its millisecond and replace it.
 */
export class FrameSchedule {
  readonly #toMs: (t: number) => number;
  readonly #endMs: number;
  /** Milliseconds of the video's last frame on the grid. */
  readonly #lastFrameMs: number;
  readonly #frames: ScheduledFrame[] = [];
  #cues = 0;

  constructor(video: { durationSeconds: number; frameRate: number | null }) {
    this.#toMs = msOnFrameGrid(video.frameRate);
    this.#endMs = Math.floor(video.durationSeconds * 1000);
    const rate = video.frameRate;
    this.#lastFrameMs = rate === null || !(rate > 0) ? this.#endMs : this.#toMs(Math.max(0, Math.round(video.durationSeconds * rate) - 1) / rate);
    this.#push({ ptsMs: 0, cue: null, t: 0 });
  }

  /** The next cue (its index is the count of cues added before it); returns the frames now settled. */
  add(cue: ScheduledCue): ScheduledFrame[] {
    const index = this.#cues++;
    for (const t of cue.changeTimes) {
      if (t >= cue.start && t < cue.end) this.#push({ ptsMs: this.#toMs(t), cue: index, t });
    }
    this.#push({ ptsMs: this.#toMs(cue.end), cue: null, t: cue.end });
    return this.#frames.splice(0, this.#frames.length - 1);
  }

  /**
   * No more cues: the frames held back and the closing one. `holdLastFrame` adds the last picture again at the
   * video's last frame, for outputs timed by the caption stream alone (it changes no burned frame).
   */
  finish(options: { holdLastFrame?: boolean } = {}): ScheduledFrame[] {
    const last = this.#frames.at(-1);
    const lastFrameMs = this.#lastFrameMs;
    const hold = options.holdLastFrame && last !== undefined && lastFrameMs > last.ptsMs && lastFrameMs < this.#endMs;
    if (hold) this.#frames.push({ ...last, ptsMs: lastFrameMs });
    if (last !== undefined && this.#endMs > last.ptsMs) this.#frames.push({ ...last, ptsMs: this.#endMs });
    return this.#frames.splice(0);
  }

  #push(frame: ScheduledFrame): void {
    const frames = this.#frames;
    const last = frames.at(-1);
    // The later of two frames that land on the same millisecond is the state from then on.
    if (last !== undefined && frame.ptsMs <= last.ptsMs) frames.pop();
    if (frame.ptsMs >= this.#endMs) return;
    const previous = frames.at(-1);
    if (frame.cue === null && previous?.cue === null) return;
    frames.push(frame);
  }
}

/** The millisecond each frame of a constant-rate video shows from, as the caption stream's frames are timed. */
export function frameGridMs(frameRate: number): (index: number) => number {
  const toMs = msOnFrameGrid(frameRate);
  return (index) => toMs(index / frameRate);
}

/** Milliseconds of the video frame nearest to a time, rounded down so the frame's own timestamp is not before it. */
function msOnFrameGrid(frameRate: number | null): (t: number) => number {
  if (frameRate === null || !(frameRate > 0)) return (t) => Math.max(0, Math.round(t * 1000));
  return (t) => Math.max(0, Math.floor((Math.round(t * frameRate) * 1000) / frameRate + 1e-6));
}
