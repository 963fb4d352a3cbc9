// Test helpers: synthetic speech with known text and timing (flite + ffmpeg), no committed media.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { SAMPLE_RATE } from "../asr/speech-engine.ts";

export interface SpokenSentence {
  text: string;
  /** Seconds in the composed file where this sentence's clip starts and ends (flite's own edge silence included). */
  start: number;
  end: number;
}

export interface SpeechFixture {
  /** 16 kHz mono s16le PCM in Matroska: the worker decodes only the containers it accepts from users. */
  path: string;
  duration: number;
  sentences: SpokenSentence[];
  dispose(): Promise<void>;
}

/**
 * Speaks each sentence with flite's "slt" voice, each clip after `silenceBefore` seconds of silence. `durationStretch`
 * (flite's own, default 1) scales every phone's length: 0.66 speaks about 1.5 times faster, the way a fast talker
 * does, pitch and spectrum unchanged (a time-stretch of normal speech would add its own artefacts instead).
 */
export async function composeSpeech(
  parts: readonly { text: string; silenceBefore: number }[],
  options: { durationStretch?: number } = {},
): Promise<SpeechFixture> {
  const stretch = options.durationStretch === undefined ? [] : ["--setf", `duration_stretch=${options.durationStretch}`];
  const dir = await mkdtemp(join(tmpdir(), "asr-fixture-"));
  try {
    const inputs: string[] = [];
    const filters: string[] = [];
    const sentences: SpokenSentence[] = [];
    let cursor = 0;
    for (const [i, part] of parts.entries()) {
      const clip = join(dir, `s${i}.wav`);
      await execa("flite", ["-voice", "slt", ...stretch, "-t", part.text, "-o", clip]);
      const clipSeconds = await probeSeconds(clip);
      const start = cursor + part.silenceBefore;
      sentences.push({ text: part.text, start, end: start + clipSeconds });
      cursor = start + clipSeconds;
      inputs.push("-i", clip);
      filters.push(`[${i}:a]aresample=${SAMPLE_RATE},adelay=${Math.round(start * 1000)}:all=1[a${i}]`);
    }
    const path = join(dir, "speech.mka");
    const mix = parts.map((_, i) => `[a${i}]`).join("");
    await execa("ffmpeg", [
      "-v", "error", ...inputs,
      "-filter_complex", `${filters.join(";")};${mix}amix=inputs=${parts.length}:normalize=0:duration=longest[out]`,
      "-map", "[out]", "-ac", "1", "-ar", String(SAMPLE_RATE), "-c:a", "pcm_s16le", "-y", path,
    ]);
    return { path, duration: cursor, sentences, dispose: () => rm(dir, { recursive: true, force: true }) };
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

async function probeSeconds(path: string): Promise<number> {
  const { stdout } = await execa("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", path]);
  return Number(stdout.trim());
}


export interface VoiceActivityFixtures {
  twoSentences: SpeechFixture;
  runOn: SpeechFixture;
  dispose(): Promise<void>;
}

/**
 * The voice-activity tests' audio: two sentences with silence between and around them, and a run-on sentence with
 * commas only (no pause long enough for the detector to end the speech by itself).
 */
export async function voiceActivityFixtures(): Promise<VoiceActivityFixtures> {
  const twoSentences = await composeSpeech([
    { text: "Welcome to the show. Today we talk about the weather.", silenceBefore: 0.8 },
    { text: "I would like to order a cup of coffee, please.", silenceBefore: 2 },
  ]);
  const runOn = await composeSpeech([
    { text: "It is easy to tell the depth of a well, and these days a chicken leg is a rare dish, it is easy to tell the depth of a well.", silenceBefore: 0.3 },
  ]);
  return {
    twoSentences,
    runOn,
    async dispose() {
      await Promise.all([twoSentences.dispose(), runOn.dispose()]);
    },
  };
}
