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
  const toMs = msOnFrameGrid(video.frameRate);
  const endMs = Math.floor(video.durationSeconds * 1000);
  const frames: ScheduledFrame[] = [];
  const push = (frame: ScheduledFrame) => {
    const last = frames.at(-1);
    // The later of two frames that land on the same millisecond is the state from then on.
    if (last !== undefined && frame.ptsMs <= last.ptsMs) frames.pop();
    if (frame.ptsMs >= endMs) return;
    const previous = frames.at(-1);
    if (frame.cue === null && previous?.cue === null) return;
    frames.push(frame);
  };

  push({ ptsMs: 0, cue: null, t: 0 });
  cues.forEach((cue, index) => {
    for (const t of cue.changeTimes) {
      if (t >= cue.start && t < cue.end) push({ ptsMs: toMs(t), cue: index, t });
    }
    push({ ptsMs: toMs(cue.end), cue: null, t: cue.end });
  });
  const last = frames.at(-1);
  if (last !== undefined && endMs > last.ptsMs) frames.push({ ...last, ptsMs: endMs });
  return frames;
}

/** Milliseconds of the video frame nearest to a time, rounded down so the frame's own timestamp is not before it. */
function msOnFrameGrid(frameRate: number | null): (t: number) => number {
  if (frameRate === null || !(frameRate > 0)) return (t) => Math.max(0, Math.round(t * 1000));
  return (t) => Math.max(0, Math.floor((Math.round(t * frameRate) * 1000) / frameRate + 1e-6));
}
