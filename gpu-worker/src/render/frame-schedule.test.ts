import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { FrameSchedule, scheduleFrames, type ScheduledCue, type ScheduledFrame } from "./frame-schedule.ts";

const still = (start: number, end: number): ScheduledCue => ({ start, end, changeTimes: [start] });
const brief = (frames: { ptsMs: number; cue: number | null }[]) => frames.map((f) => [f.ptsMs, f.cue]);

const cases: { name: string; cues: ScheduledCue[]; duration?: number; fps?: number | null; expected: [number, number | null][] }[] = [
  {
    name: "clear at 0, each cue on its frame, a clear after a gap, a closing frame",
    cues: [still(0.5, 1.2), still(2, 3)],
    expected: [[0, null], [500, 0], [1200, null], [2000, 1], [3000, null], [4000, null]],
  },
  {
    name: "cues back to back need no clear between them",
    cues: [still(0, 1), still(1, 2)],
    expected: [[0, 0], [1000, 1], [2000, null], [4000, null]],
  },
  {
    name: "a cue running to the end repeats in the closing frame",
    cues: [still(3, 5)],
    expected: [[0, null], [3000, 0], [4000, 0]],
  },
  {
    name: "times snap to the nearest video frame, in whole ms not after it",
    cues: [still(1.24, 2.01)],
    fps: 30,
    expected: [[0, null], [1233, 0], [2000, null], [4000, null]],
  },
  {
    name: "29.97 fps grid",
    cues: [still(1.0, 2.0)],
    fps: 30000 / 1001,
    expected: [[0, null], [1001, 0], [2002, null], [4000, null]],
  },
  {
    name: "a cue shorter than half a frame vanishes rather than flashing",
    cues: [still(1.0, 1.01), still(2, 3)],
    fps: 30,
    expected: [[0, null], [2000, 1], [3000, null], [4000, null]],
  },
  {
    name: "cues past the end are dropped",
    cues: [still(1, 2), still(4.5, 5)],
    expected: [[0, null], [1000, 0], [2000, null], [4000, null]],
  },
  {
    name: "animated cues send every change",
    cues: [{ start: 1, end: 1.2, changeTimes: [1, 1.1, 1.15] }],
    expected: [[0, null], [1000, 0], [1100, 0], [1150, 0], [1200, null], [4000, null]],
  },
  { name: "no cues: a clear frame and the closing frame", cues: [], expected: [[0, null], [4000, null]] },
];

for (const c of cases) {
  test(`scheduleFrames: ${c.name}`, () => {
    const frames = scheduleFrames(c.cues, { durationSeconds: c.duration ?? 4, frameRate: c.fps ?? null });
    assert.deepEqual(brief(frames), c.expected);
  });
}

test("scheduleFrames: timestamps strictly increase and drawing times lie inside their cue", () => {
  const cues = Array.from({ length: 50 }, (_, i) => ({ start: i * 0.37, end: i * 0.37 + 0.3, changeTimes: [i * 0.37, i * 0.37 + 0.1] }));
  const frames = scheduleFrames(cues, { durationSeconds: 20, frameRate: 25 });
  for (let i = 1; i < frames.length; i++) assert.ok(frames[i]!.ptsMs > frames[i - 1]!.ptsMs);
  for (const f of frames) if (f.cue !== null) assert.ok(f.t >= cues[f.cue]!.start && f.t < cues[f.cue]!.end);
});

// The batch algorithm FrameSchedule replaced, kept as the oracle: cues handed over one at a time must give
// exactly its frames (a frame handed out is never taken back).
function batchSchedule(cues: readonly ScheduledCue[], video: { durationSeconds: number; frameRate: number | null }): ScheduledFrame[] {
  const toMs = (t: number) =>
    video.frameRate === null ? Math.max(0, Math.round(t * 1000)) : Math.max(0, Math.floor((Math.round(t * video.frameRate) * 1000) / video.frameRate + 1e-6));
  const endMs = Math.floor(video.durationSeconds * 1000);
  const frames: ScheduledFrame[] = [];
  const push = (frame: ScheduledFrame) => {
    const last = frames.at(-1);
    if (last !== undefined && frame.ptsMs <= last.ptsMs) frames.pop();
    if (frame.ptsMs >= endMs) return;
    const previous = frames.at(-1);
    if (frame.cue === null && previous?.cue === null) return;
    frames.push(frame);
  };
  push({ ptsMs: 0, cue: null, t: 0 });
  cues.forEach((cue, index) => {
    for (const t of cue.changeTimes) if (t >= cue.start && t < cue.end) push({ ptsMs: toMs(t), cue: index, t });
    push({ ptsMs: toMs(cue.end), cue: null, t: cue.end });
  });
  const last = frames.at(-1);
  if (last !== undefined && endMs > last.ptsMs) frames.push({ ...last, ptsMs: endMs });
  return frames;
}

test("FrameSchedule: cues one at a time give the batch schedule's frames, none taken back", () => {
  const cuesArb = fc
    .array(
      fc.record({
        gap: fc.double({ min: 0, max: 0.2, noNaN: true }),
        length: fc.double({ min: 0, max: 0.3, noNaN: true }),
        changes: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 4 }),
      }),
      { maxLength: 12 },
    )
    .map((drafts) => {
      let t = 0;
      return drafts.map(({ gap, length, changes }): ScheduledCue => {
        const start = t + gap;
        t = start + length;
        return { start, end: t, changeTimes: [start, ...changes.map((c) => start + c * length).sort((a, b) => a - b)] };
      });
    });
  fc.assert(
    fc.property(cuesArb, fc.double({ min: 0.1, max: 4, noNaN: true }), fc.constantFrom(null, 24, 30, 30000 / 1001, 60), (cues, durationSeconds, frameRate) => {
      const video = { durationSeconds, frameRate };
      const schedule = new FrameSchedule(video);
      const handedOut = [...cues.flatMap((cue) => schedule.add(cue)), ...schedule.finish()];
      assert.deepEqual(handedOut, batchSchedule(cues, video));
    }),
    { numRuns: 1000 },
  );
});
