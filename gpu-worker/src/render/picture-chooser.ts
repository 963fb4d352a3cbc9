import type { CueLayout } from "./caption-layout.ts";
import { captionCoverage, cueCandidates, posterWindow, STRIP_FRAMES, stripPart, type Timeline } from "./picture-instants.ts";

// The poster's and the strip's frames chosen while the render runs, cue by cue as the cues become known, by
// the rules of render/picture-instants.ts (which choose them from all the cues at once): every frame that may
// still turn out to be one of them is asked for before the render passes it, and the last one asked for each
// picture is the one. A cue settles every instant before its end: later cues only add instants after it.

/** The instant with the most caption seen so far, the earliest of equals; instants are offered in order. */
class MostCaption {
  at: number | undefined;
  #coverage = 0;

  offer(instants: readonly number[], coverage: (t: number) => number): void {
    for (const t of [...instants].sort((a, b) => a - b)) {
      const c = coverage(t);
      if (c > this.#coverage) [this.at, this.#coverage] = [t, c];
    }
  }
}

/** Frames (indexes in the video) to take now, ascending; and the first frame any later take can ask for. */
export interface FramesToTake {
  frames: number[];
  settledFrame: number;
}

/** A picture's instant, and which of the frames taken (in the order they were asked for) shows it. */
export interface ChosenFrame {
  at: number;
  take: number;
}

export interface ChosenPictures {
  poster: ChosenFrame;
  strip: ChosenFrame[];
}

interface StripPart {
  from: number;
  to: number;
  middle: number;
  /** Whether a caption shows at the middle; undefined until a cue holding it is known, or the cues are done. */
  middleShows: boolean | undefined;
  best: MostCaption;
}

export class PictureChooser {
  readonly #timeline: Timeline & { layouts: CueLayout[] };
  readonly #window: number;
  readonly #posterBest = { window: new MostCaption(), anywhere: new MostCaption() };
  readonly #parts: StripPart[];
  /** Frames asked for, in order, and the take that holds each. */
  readonly #takes = new Map<number, number>();
  #lastFrame = -1;
  /** The take of each picture so far: poster first, then the strip's. */
  readonly #chosen: (ChosenFrame | undefined)[];
  #finished = false;

  constructor(video: Omit<Timeline, "layouts">) {
    this.#timeline = { ...video, layouts: [] };
    this.#window = posterWindow(video.durationSeconds);
    this.#parts = Array.from({ length: STRIP_FRAMES }, (_, i) => ({ ...stripPart(video.durationSeconds, i), middleShows: undefined, best: new MostCaption() }));
    this.#chosen = Array.from({ length: STRIP_FRAMES + 1 }, () => undefined);
  }

  /** The next cue, laid out (cues in order, not overlapping): the frames to take before the render passes its end. */
  add(layout: CueLayout): FramesToTake {
    if (this.#finished) throw new Error("no cue can follow the last");
    const timeline = this.#timeline;
    timeline.layouts.push(layout);
    const coverage = (t: number) => captionCoverage(timeline, t);
    this.#posterBest.window.offer(cueCandidates(layout, timeline, 0, this.#window), coverage);
    this.#posterBest.anywhere.offer(cueCandidates(layout, timeline, 0, timeline.durationSeconds), coverage);
    for (const part of this.#parts) {
      if (layout.cue.start <= part.middle && part.middle < layout.cue.end) part.middleShows = coverage(part.middle) > 0;
      part.best.offer(cueCandidates(layout, timeline, part.from, part.to), coverage);
    }
    return this.#settle(layout.cue.end);
  }

  get finished(): boolean {
    return this.#finished;
  }

  /** No more cues: the last frames to take. */
  finish(): FramesToTake {
    this.#finished = true;
    return this.#settle(Infinity);
  }

  /** Once finished: each picture's instant and take. */
  chosen(): ChosenPictures {
    if (!this.#finished) throw new Error("the pictures are chosen once the cues are done");
    const [poster, ...strip] = this.#chosen as ChosenFrame[];
    return { poster: poster!, strip };
  }

  frameOf(t: number): number {
    return Math.floor(t * this.#timeline.frameRate + 1e-6);
  }

  /** What each picture would be if no cue came after `horizon`, for those instants before it: taken when new. */
  #settle(horizon: number): FramesToTake {
    const { window, anywhere } = this.#posterBest;
    const posterFallback = this.#window / 2 < horizon ? this.#window / 2 : undefined;
    const wanted = [
      window.at ?? anywhere.at ?? posterFallback,
      ...this.#parts.map((part) => (part.middle < horizon ? (part.middleShows ? part.middle : (part.best.at ?? part.middle)) : part.best.at)),
    ];
    const changed = wanted.map((at, i) => (at !== undefined && at !== this.#chosen[i]?.at ? at : undefined));
    const asked = changed.filter((at) => at !== undefined).map((at) => this.frameOf(at));
    // Takes are numbered in the order the render meets their frames; a frame already taken serves again.
    const frames = [...new Set(asked)].filter((frame) => !this.#takes.has(frame)).sort((a, b) => a - b);
    if (frames[0] !== undefined && frames[0] <= this.#lastFrame) throw new Error(`frame ${frames[0]} asked for after frame ${this.#lastFrame}`);
    for (const frame of frames) this.#takes.set(frame, this.#takes.size);
    this.#lastFrame = frames.at(-1) ?? this.#lastFrame;
    changed.forEach((at, i) => {
      if (at !== undefined) this.#chosen[i] = { at, take: this.#takes.get(this.frameOf(at))! };
    });
    const settled = Number.isFinite(horizon) ? horizon : this.#timeline.durationSeconds;
    return { frames, settledFrame: this.frameOf(settled) };
  }
}
