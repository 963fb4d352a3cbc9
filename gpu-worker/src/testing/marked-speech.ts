// Test audio for the hand-weighted recognizers behind voice activity detection: real (flite) speech
// makes the VAD's segments, marker tones mixed into it make the words.
import { SAMPLE_RATE } from "../asr/speech-engine.ts";
import { decodePcm16kMono } from "../media/audio-pcm.ts";
import { composeSpeech, type SpokenSentence } from "./speech-fixtures.ts";
import { toneTrack, type Tone } from "./tones.ts";

export interface MarkedSpeech {
  /** The two sentences, one VAD segment each, where the file has them. */
  sentences: [SpokenSentence, SpokenSentence];
  /** The mixed 16 kHz audio in half-second chunks, as the worker's decoder yields it. */
  pcm(): AsyncGenerator<Float32Array>;
}

/** Two spoken sentences, 1 s and 2 s of silence before them, with the tones `marks` places (by the sentences' times) mixed in. */
export async function markedSpeech(marks: (first: SpokenSentence, second: SpokenSentence) => Tone[], amplitude = 0.2): Promise<MarkedSpeech> {
  const fixture = await composeSpeech([
    { text: "The quick brown fox jumps over the lazy dog.", silenceBefore: 1.0 },
    { text: "Speech recognition turns sound into text.", silenceBefore: 2.0 },
  ]);
  try {
    const chunks: Float32Array[] = [];
    for await (const chunk of decodePcm16kMono(fixture.path, { signal: new AbortController().signal })) chunks.push(chunk);
    const audio = new Float32Array(chunks.reduce((n, c) => n + c.length, 0));
    chunks.reduce((offset, c) => (audio.set(c, offset), offset + c.length), 0);
    const [first, second] = fixture.sentences;
    if (!first || !second) throw new Error("flite spoke fewer sentences than asked");
    const tones = toneTrack(audio.length / SAMPLE_RATE, marks(first, second), amplitude);
    for (const [i, v] of tones.entries()) audio[i] = (audio[i] ?? 0) + v;
    return {
      sentences: [first, second],
      async *pcm() {
        for (let i = 0; i < audio.length; i += SAMPLE_RATE / 2) yield audio.slice(i, i + SAMPLE_RATE / 2);
      },
    };
  } finally {
    await fixture.dispose();
  }
}
