// Test and benchmark support: what a caption job is doing, seen from outside through its processes (Linux /proc),
// as a person with `ps` would see it: which state to cancel it in, and what has to be gone after.
import { bytesWritten, commandLine, descendantProcesses, openFiles, type ProcessInfo } from "./process-tree.ts";
import { makeSpeechVideo, type GeneratedMedia } from "./speech-video.ts";

/** 16 kHz mono float32: bytes of PCM per second of audio. */
const PCM_BYTES_PER_SECOND = 16_000 * 4;

const ffmpegWith = (root: number, arg: string): ProcessInfo | undefined =>
  descendantProcesses(root).find((p) => p.name === "ffmpeg" && commandLine(p.pid).includes(arg));

/** The job's audio extraction (PCM to a pipe) among `root`'s descendants. */
export const audioExtraction = (root: number): ProcessInfo | undefined => ffmpegWith(root, "f32le");

/** The render's ffmpeg (its caption stream comes on stdin) among `root`'s descendants. */
export const renderFfmpeg = (root: number): ProcessInfo | undefined => ffmpegWith(root, "pipe:0");

/** Seconds of audio an extraction has handed over so far (0 when there is none). */
export const audioSecondsExtracted = (pid: number | undefined): number => (pid === undefined ? 0 : bytesWritten(pid) / PCM_BYTES_PER_SECOND);

/** pocketsphinx_batch and the shells and pipes around it (asr/pocketsphinx-process.ts), among `all`. */
export function recognizerProcesses(all: readonly ProcessInfo[]): ProcessInfo[] {
  const shells = new Set(all.filter((p) => commandLine(p.pid).some((arg) => arg.endsWith("pocketsphinx_batch"))).map((p) => p.pid));
  return all.filter((p) => shells.has(p.pid) || shells.has(p.ppid));
}

/** pocketsphinx while it decodes an utterance: it reads the utterance's audio file as it goes. */
export const decodingRecognizer = (root: number): ProcessInfo | undefined =>
  recognizerProcesses(descendantProcesses(root)).find((p) => openFiles(p.pid).some((file) => file.endsWith(".raw")));

/** What a job has running under `root`: every descendant but the recognizer's long-lived process while it is idle. */
export function jobProcesses(root: number): ProcessInfo[] {
  const all = descendantProcesses(root);
  const recognizer = recognizerProcesses(all);
  const decoding = recognizer.some((p) => openFiles(p.pid).some((file) => file.endsWith(".raw")));
  return decoding ? all : all.filter((p) => !recognizer.includes(p));
}

/**
 * Videos that hold a caption job in each state long enough to act on it there (426x240, so they are quick to make
 * and to draw): speech only after 280 s of silence (audio extraction and the VAD work long before the recognizer
 * is needed); speech from the start without a pause long enough to cut it (a long first utterance); a few words,
 * then a minute to draw (rendering goes on long after recognition ends).
 */
export async function makeJobStateVideos(): Promise<{ quietStart: GeneratedMedia; speechFirst: GeneratedMedia; longRender: GeneratedMedia }> {
  const small = { width: 426, height: 240, fps: 30 };
  const talk =
    "Welcome back to the channel. Today we are going to bake a simple loaf of bread at home with only four ingredients, flour, water, " +
    "salt and yeast, and we will take our time with every step so that nothing goes wrong along the way.";
  return {
    quietStart: await makeSpeechVideo({ ...small, text: "And here at last somebody speaks.", padSeconds: 280, durationSeconds: 290 }),
    speechFirst: await makeSpeechVideo({ ...small, text: talk, durationSeconds: 30 }),
    longRender: await makeSpeechVideo({ ...small, text: "Short and sweet.", durationSeconds: 60 }),
  };
}
