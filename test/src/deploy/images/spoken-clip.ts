// The clips the check captions: flite speech (so the worker's voice activity detection finds it) with
// marker tones mixed in that the tiny SenseVoice model built into the image hears as words (model-mirror.ts).
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { execa } from "execa";
import { markedSpeech } from "@caption/gpu-worker/testing";
import { MARKERS, markerTone } from "./model-mirror.ts";

export interface SpokenClip {
  path: string;
  /** The words the built-in model must write, in order. */
  words: string[];
  dispose(): Promise<void>;
}

/** 16 kHz mono float samples as a WAV file. */
function wav(samples: Float32Array): Buffer {
  const header = Buffer.alloc(44);
  const bytes = samples.length * 4;
  header.write("RIFF", 0);
  header.writeUInt32LE(36 + bytes, 4);
  header.write("WAVEfmt ", 8);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(3, 20); // IEEE float
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(16_000, 24);
  header.writeUInt32LE(16_000 * 4, 28);
  header.writeUInt16LE(4, 32);
  header.writeUInt16LE(32, 34);
  header.write("data", 36);
  header.writeUInt32LE(bytes, 40);
  return Buffer.concat([header, Buffer.from(samples.buffer, samples.byteOffset, bytes)]);
}

/**
 * An MP4 (H.264 + AAC) of two spoken sentences, "hello" marked in the first (after the language tone)
 * and "world" in the second, `repeat` times over (a longer job for the drain check).
 */
export async function makeSpokenClip(options: { width: number; height: number; repeat: number }): Promise<SpokenClip> {
  const speech = await markedSpeech((first, second) => [
    markerTone(MARKERS.language.bin, first.start + 0.3, first.start + 0.45),
    markerTone(MARKERS.hello.bin, first.start + 0.8, first.start + 0.95),
    markerTone(MARKERS.world.bin, second.start + 0.8, second.start + 0.95),
  ]);
  const chunks: Float32Array[] = [];
  for await (const chunk of speech.pcm()) chunks.push(chunk);
  const once = new Float32Array(chunks.reduce((n, c) => n + c.length, 0));
  chunks.reduce((offset, c) => (once.set(c, offset), offset + c.length), 0);
  const audio = new Float32Array(once.length * options.repeat);
  for (let i = 0; i < options.repeat; i++) audio.set(once, i * once.length);

  const dir = await mkdtemp(path.join(tmpdir(), "images-check-clip-"));
  const audioPath = path.join(dir, "speech.wav");
  await writeFile(audioPath, wav(audio));
  const clipPath = path.join(dir, "spoken.mp4");
  const seconds = audio.length / 16_000;
  await execa("ffmpeg", [
    "-v", "error", "-f", "lavfi", "-i", `testsrc2=size=${options.width}x${options.height}:rate=25:duration=${seconds}`, "-i", audioPath,
    "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-b:a", "128k", "-shortest", "-movflags", "+faststart", "-y", clipPath,
  ]);
  const words = Array.from({ length: options.repeat }, () => [MARKERS.hello.word, MARKERS.world.word]).flat();
  return { path: clipPath, words, dispose: () => rm(dir, { recursive: true, force: true }) };
}
