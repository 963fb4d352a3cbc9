import { Worker } from "node:worker_threads";
import type { PassedWord } from "./passed-word.ts";
import type { SnapOutcome, SnapTerm } from "./vocabulary-snap.ts";

const THREAD = new URL("./vocabulary-thread.ts", import.meta.url);
export const THREAD_NAME = "vocabulary";
/** The thread holds a stretch of words, the terms and their pronunciations: far less than this. */
const THREAD_HEAP_MB = 256;

export interface SnapThreadData {
  terms: SnapTerm[];
}
export interface SnapRequest {
  words: PassedWord[];
  phones: Map<string, string[][]>;
  budget: number;
}
export type SnapThreadMessage = { kind: "ready" } | { kind: "progress"; used: number } | ({ kind: "done"; cpuMs: number } & SnapOutcome);
type ThreadOutcome = SnapOutcome & { cpuMs: number };

/** The work units a job's vocabulary post-pass has spent of its budget (docs/vocabulary.md). */
export interface VocabularyWork {
  used: number;
  budget: number;
  /** The budget ran out: the rest of the job was matched by spelling only. */
  spent: boolean;
  /** CPU time the thread spent snapping (what the budget bounds, whatever else the machine does). */
  cpuMs: number;
  /** How long its thread took to start (threads, when a cancel stopped one). */
  startMs: number;
}

export interface VocabularySnapper {
  /** Snaps one stretch of words in the thread; rejects with `signal`'s reason as soon as it aborts, the thread stopped. */
  snap(words: readonly PassedWord[], phones: Map<string, string[][]>, signal?: AbortSignal): Promise<PassedWord[]>;
  readonly work: VocabularyWork;
  /** Resolves once its thread can take words. */
  ready(): Promise<void>;
  /** Stops the thread; the snapper takes no more words. */
  close(): Promise<void>;
}

export interface SnapperOptions {
  /** Work units for all the job's words together. */
  budget: number;
  /** Hears the units spent so far after each word (as the thread reports them). */
  onProgress?: (used: number) => void;
}

/**
 * The vocabulary post-pass (vocabulary-snap.ts) for one job, in a worker thread of its own, one stretch of words
 * at a time: comparing sounds is plain computation, and on the event loop it held every other request of the
 * process (the API's too, in `npm start`) for as long as it ran. The thread starts at once, so it is ready when
 * the first words are; a cancel or deadline (`signal`) terminates it, and the next stretch starts another.
 */
export function startVocabularySnapper(terms: readonly SnapTerm[], options: SnapperOptions): VocabularySnapper {
  const work: VocabularyWork = { used: 0, budget: options.budget, spent: false, cpuMs: 0, startMs: 0 };
  const start = () => {
    const started = startThread(terms);
    started.ready.then((ms) => (work.startMs += ms), () => undefined);
    return started;
  };
  let thread: SnapThread | undefined = start();
  let closed = false;
  let queue: Promise<unknown> = Promise.resolve();

  const snapNow = async (words: readonly PassedWord[], phones: Map<string, string[][]>, signal?: AbortSignal) => {
    signal?.throwIfAborted();
    if (closed) throw new Error("the vocabulary snapper is closed");
    thread ??= start();
    const current = thread;
    const request = { words: [...words], phones, budget: work.budget - work.used };
    const outcome = await current.run(request, signal, (used) => options.onProgress?.(work.used + used)).catch(async (error: unknown) => {
      if (thread === current) thread = undefined;
      await current.stop();
      throw error;
    });
    work.used += outcome.used;
    work.spent ||= outcome.spent;
    work.cpuMs += outcome.cpuMs;
    return outcome.words;
  };

  return {
    work,
    ready: async () => void (await thread?.ready),
    snap(words, phones, signal) {
      const result = queue.then(() => snapNow(words, phones, signal));
      queue = result.catch(() => undefined);
      return result;
    },
    async close() {
      closed = true;
      await thread?.stop();
      thread = undefined;
    },
  };
}

interface SnapThread {
  /** Resolves with the milliseconds the thread took to load; rejects if it stopped first. */
  ready: Promise<number>;
  run(request: SnapRequest, signal: AbortSignal | undefined, onProgress: (used: number) => void): Promise<ThreadOutcome>;
  /** Terminates the thread; resolves once it has stopped. */
  stop(): Promise<void>;
}

function startThread(terms: readonly SnapTerm[]): SnapThread {
  const worker = new Worker(THREAD, {
    // The thread's name (`top -H`, /proc/<pid>/task/*/comm).
    name: THREAD_NAME,
    workerData: { terms: [...terms] } satisfies SnapThreadData,
    // Not the process's flags: its --import preloads (telemetry) have no business in a thread that only computes.
    execArgv: [],
    resourceLimits: { maxOldGenerationSizeMb: THREAD_HEAP_MB },
  });
  const started = performance.now();
  const ready = Promise.withResolvers<number>();
  ready.promise.catch(() => undefined);
  let failure: Error | undefined;
  let waiting: { resolve: (outcome: ThreadOutcome) => void; reject: (error: unknown) => void; progress: (used: number) => void } | undefined;
  worker.on("message", (message: SnapThreadMessage) => {
    if (message.kind === "ready") return ready.resolve(performance.now() - started);
    if (message.kind === "progress") return waiting?.progress(message.used);
    const { kind: _kind, ...outcome } = message;
    waiting?.resolve(outcome);
  });
  // A thread that fails to load or runs out of memory fails the stretch it was given, never the process.
  worker.on("error", (error) => {
    failure ??= error;
    ready.reject(failure);
    waiting?.reject(error);
  });
  worker.on("exit", (code) => {
    failure ??= new Error(`the vocabulary thread stopped (exit code ${code})`);
    ready.reject(failure);
    waiting?.reject(failure);
  });
  // Idle between stretches, it never keeps the process alive (after its listeners, which would hold it again).
  worker.unref();
  const stopped = () => worker.terminate().then(() => undefined, () => undefined);

  return {
    ready: ready.promise,
    stop: stopped,
    run(request, signal, onProgress) {
      if (failure) return Promise.reject(failure);
      return new Promise<ThreadOutcome>((resolve, reject) => {
        const settle = () => {
          waiting = undefined;
          signal?.removeEventListener("abort", onAbort);
          worker.unref();
        };
        const onAbort = () => {
          settle();
          void stopped().then(() => reject(signal!.reason));
        };
        waiting = {
          progress: onProgress,
          resolve: (outcome) => {
            settle();
            resolve(outcome);
          },
          reject: (error) => {
            settle();
            reject(error);
          },
        };
        signal?.addEventListener("abort", onAbort, { once: true });
        worker.ref();
        worker.postMessage(request satisfies SnapRequest);
      });
    },
  };
}
