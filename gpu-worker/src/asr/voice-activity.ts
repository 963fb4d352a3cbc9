import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import { SampleHistory } from "./sample-history.ts";
import { DEFAULT_MAX_SEGMENT_SECONDS, MIN_SPEECH_SECONDS, speechDetectors, WINDOW_SIZE, type NativeVad, type SpeechDetectors } from "./speech-detectors.ts";
import { SAMPLE_RATE, type SpeechSegment } from "./speech-engine.ts";

/**
 * The detector runs on the event loop, and audio comes faster than it is read: libuv hands a pipe's reads over
 * one after another, so without turns of its own it would work through dozens of seconds of audio before a
 * cancel's notification, a timer or a child's exit could be handled (seconds on a busy machine). Eight windows
 * (a quarter second of audio) are a few milliseconds of work.
 */
const WINDOWS_PER_TURN = 8;
/** Context kept around each detected stretch so word onsets and endings are not clipped. */
const PAD_SECONDS = 0.25;
/** Padded stretches closer than this become one segment: fewer, longer segments decode better. */
const MERGE_GAP_SECONDS = 0.3;
/**
 * The first segment is cut shorter: the render draws nothing before the first words are known, and while they
 * are being recognised the encoder's cores wait (about a tenth of a 25 s segment's length with pocketsphinx).
 */
const DEFAULT_FIRST_SEGMENT_SECONDS = 6;

/**
 * The longest a segment starting `startSeconds` into the audio may be: no longer than the audio before it (nor
 * shorter than the first segment may be, nor longer than `maxSeconds`). The render composites no further than
 * the words recognised, and a segment's words come only when the whole segment is decoded. Where the render
 * outruns recognition (more cores, a hardware encoder), a 25 s second segment made it wait, and left the render
 * of the whole last segment for after recognition; segments that grow with the audio behind them keep the words
 * ahead of the render and that tail short. On 2 cores, where the render is bound by the cores, it changes nothing
 * measurable (docs/performance.md).
 */
export function segmentLimitSeconds(startSeconds: number, limits: { firstSeconds: number; maxSeconds: number }): number {
  return Math.min(limits.maxSeconds, Math.max(limits.firstSeconds, startSeconds));
}

export interface SegmentSpeechOptions {
  /** Where the detector comes from: the worker's, built before it takes jobs. Default: one built for this call, of `modelPath`. */
  detectors?: SpeechDetectors;
  /** Without `detectors`: defaults to the pinned Silero VAD v6.2 model that models:download installs (its size and sha256 are then checked). */
  modelPath?: string;
  signal: AbortSignal;
  /** Longest segment emitted, in seconds (default 25). */
  maxSegmentSeconds?: number;
  /**
   * Longest first segment, in seconds (default 6, at most maxSegmentSeconds): the first words come sooner. Later
   * ones may be as long as the audio before them, up to maxSegmentSeconds (segmentLimitSeconds).
   */
  firstSegmentSeconds?: number;
  /** Each stretch the detector calls speech (absolute seconds, without the padding segments get), as it is found. */
  onSpeech?: (stretch: { start: number; end: number }) => void;
}

interface Span {
  start: number;
  end: number;
}

/**
 * Splits 16 kHz mono audio into speech segments with Silero VAD, streaming: a segment is yielded
 * as soon as no later speech can be merged into it. Segment starts are absolute (seconds from the
 * first sample of `pcm`).
 */
export async function* segmentSpeech(
  pcm: AsyncIterable<Float32Array>,
  options: SegmentSpeechOptions,
): AsyncGenerator<SpeechSegment> {
  const { signal } = options;
  signal.throwIfAborted();
  const maxSegmentSeconds = options.maxSegmentSeconds ?? DEFAULT_MAX_SEGMENT_SECONDS;
  if (!(maxSegmentSeconds >= 2)) throw new RangeError("maxSegmentSeconds must be at least 2");
  const lease = await (options.detectors ?? speechDetectors(options.modelPath)).take(maxSegmentSeconds);
  try {
    yield* segmentWith(lease.vad, pcm, { ...options, maxSegmentSeconds });
  } finally {
    lease.release();
  }
}

async function* segmentWith(
  vad: NativeVad,
  pcm: AsyncIterable<Float32Array>,
  options: SegmentSpeechOptions & { maxSegmentSeconds: number },
): AsyncGenerator<SpeechSegment> {
  const { signal, maxSegmentSeconds } = options;

  const pad = Math.round(PAD_SECONDS * SAMPLE_RATE);
  const mergeGap = Math.round(MERGE_GAP_SECONDS * SAMPLE_RATE);
  const firstSegmentSeconds = Math.min(maxSegmentSeconds, options.firstSegmentSeconds ?? DEFAULT_FIRST_SEGMENT_SECONDS);
  if (!(firstSegmentSeconds >= 2)) throw new RangeError("firstSegmentSeconds must be at least 2");
  // The longest a segment starting at sample `from` may be.
  const limit = (from: number) =>
    Math.round(segmentLimitSeconds(from / SAMPLE_RATE, { firstSeconds: firstSegmentSeconds, maxSeconds: maxSegmentSeconds }) * SAMPLE_RATE);
  // sherpa's maxSpeechDuration does not split speech without pauses, so long speech is flushed
  // out of the detector in pieces and re-cut at quiet points below.
  const flushSamples = (from: number) => Math.round(limit(from) / 2);
  // Speech that starts after pending.end + this would already be detected, so nothing can join it.
  const settleSamples = pad + mergeGap + Math.round((MIN_SPEECH_SECONDS + 0.1) * SAMPLE_RATE);
  const keepSamples = Math.round((maxSegmentSeconds / 2 + 5) * SAMPLE_RATE) + pad;

  const history = new SampleHistory();
  const window = new Float32Array(WINDOW_SIZE);
  let windowFill = 0;
  let speechSince: number | undefined;
  let pending: Span | undefined;

  /** The segment [from, to), unless the work was stopped meanwhile (a segment yielded is one the caller recognises). */
  function segment(from: number, to: number): SpeechSegment {
    signal.throwIfAborted();
    return { start: from / SAMPLE_RATE, samples: history.slice(from, to) };
  }

  /** Yields the head of `span` while it is longer than a segment may be. */
  function* splitOffHead(span: Span): Generator<SpeechSegment> {
    while (span.end - span.start > limit(span.start)) {
      const longest = limit(span.start);
      const cut = quietestPoint(history, span.start + Math.round(longest / 2), span.start + longest);
      yield segment(span.start, cut);
      span.start = cut;
    }
  }

  function* emit(span: Span): Generator<SpeechSegment> {
    span.end = Math.min(span.end, history.end);
    yield* splitOffHead(span);
    if (span.end > span.start) yield segment(span.start, span.end);
  }

  function* takeDetected(): Generator<SpeechSegment> {
    while (!vad.isEmpty()) {
      const found = vad.front(false);
      vad.pop();
      options.onSpeech?.({ start: found.start / SAMPLE_RATE, end: (found.start + found.samples.length) / SAMPLE_RATE });
      const next = { start: Math.max(0, found.start - pad), end: found.start + found.samples.length + pad };
      if (pending && next.start - pending.end <= mergeGap) {
        pending.end = Math.max(pending.end, next.end);
        continue;
      }
      if (pending) {
        next.start = Math.max(next.start, pending.end);
        yield* emit(pending);
      }
      pending = next;
    }
    if (pending && pending.end <= history.end) yield* splitOffHead(pending);
    if (pending && !vad.isDetected() && history.end >= pending.end + settleSamples) {
      yield* emit(pending);
      pending = undefined;
    }
    history.dropBefore(Math.min(pending?.start ?? Infinity, history.end - keepSamples));
  }

  let windowsThisTurn = 0;
  for await (const chunk of pcm) {
    signal.throwIfAborted();
    history.append(chunk);
    let offset = 0;
    while (offset < chunk.length) {
      const n = Math.min(WINDOW_SIZE - windowFill, chunk.length - offset);
      window.set(chunk.subarray(offset, offset + n), windowFill);
      windowFill += n;
      offset += n;
      if (windowFill < WINDOW_SIZE) continue;
      vad.acceptWaveform(window);
      windowFill = 0;
      if (!vad.isDetected()) {
        speechSince = undefined;
      } else if (speechSince === undefined) {
        speechSince = history.end - (chunk.length - offset);
      } else if (history.end - (chunk.length - offset) - speechSince >= flushSamples(speechSince)) {
        vad.flush();
        speechSince = undefined;
      }
      if (++windowsThisTurn === WINDOWS_PER_TURN) {
        windowsThisTurn = 0;
        await yieldToEventLoop();
        signal.throwIfAborted();
      }
    }
    yield* takeDetected();
  }
  signal.throwIfAborted();
  if (windowFill > 0) vad.acceptWaveform(window.slice(0, windowFill));
  vad.flush();
  yield* takeDetected();
  if (pending) yield* emit(pending);
}

/** Sample index of the quietest 20 ms frame in [from, to): the least likely place to cut a word. */
function quietestPoint(history: SampleHistory, from: number, to: number): number {
  const frame = SAMPLE_RATE / 50;
  const samples = history.slice(from, to);
  let best = to;
  let bestEnergy = Infinity;
  for (let offset = 0; offset + frame <= samples.length; offset += frame) {
    let energy = 0;
    for (let i = offset; i < offset + frame; i++) energy += (samples[i] ?? 0) ** 2;
    if (energy < bestEnergy) {
      bestEnergy = energy;
      best = from + offset + frame / 2;
    }
  }
  return best;
}
