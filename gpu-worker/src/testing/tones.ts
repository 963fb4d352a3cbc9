// Test audio for the hand-weighted recognizers: pure tones placed in chosen mel bands, so a test
// knows which piece a model will emit and when.
import { SAMPLE_RATE } from "../asr/speech-engine.ts";

const LOG_STEP = Math.log(6.4) / 27;
const slaneyMel = (hz: number) => (hz < 1000 ? (3 * hz) / 200 : 15 + Math.log(hz / 1000) / LOG_STEP);
const slaneyHz = (mel: number) => (mel < 15 ? (200 * mel) / 3 : 1000 * Math.exp((mel - 15) * LOG_STEP));

/**
 * Upper edge of the mel scale that puts a tone where the hand-weighted peak detectors fire hardest,
 * by number of bins, found by sweeping tones through sherpa-onnx's NeMo front end (librosa/Slaney
 * filters over 0 Hz to 400 Hz below Nyquist; the detector's ±3-bin neighbours move the best tone by a
 * fraction of a bin, more so with 80 wide bins than with 128 narrow ones).
 */
const BEST_TOP_HZ: Record<number, number> = { 80: 8000, 128: 7600 };

/** The tone (Hz) that makes a NeMo-front-end peak detector on mel filter `bin` of `bins` fire hardest. */
export function melBinCentreHz(bin: number, bins = 80): number {
  const top = BEST_TOP_HZ[bins];
  if (top === undefined) throw new Error(`no measured mel scale for ${bins} bins`);
  return slaneyHz(((bin + 1) * slaneyMel(top)) / (bins + 1));
}

const kaldiMel = (hz: number) => 1127 * Math.log(1 + hz / 700);
const kaldiHz = (mel: number) => 700 * (Math.exp(mel / 1127) - 1);

/** Centre frequency of mel filter `bin` on Kaldi's HTK scale over 20 Hz–8 kHz (sherpa-onnx's fbank for SenseVoice). */
export function kaldiMelBinCentreHz(bin: number, bins = 80): number {
  const low = kaldiMel(20);
  return kaldiHz(low + ((bin + 1) * (kaldiMel(8000) - low)) / (bins + 1));
}

export interface Tone {
  hz: number;
  /** Seconds. */
  start: number;
  end: number;
}

/** Raised-cosine edges: a tone switched on at once splatters into the neighbouring bands for a frame. */
const FADE_SAMPLES = Math.round(0.01 * SAMPLE_RATE);

/** 16 kHz samples with a sine at `hz` over each [start, end) second range, faded in and out over 10 ms. */
export function toneTrack(seconds: number, tones: readonly Tone[], amplitude = 0.3): Float32Array {
  const samples = new Float32Array(Math.round(seconds * SAMPLE_RATE));
  for (const { hz, start, end } of tones) {
    const first = Math.round(start * SAMPLE_RATE);
    const last = Math.round(end * SAMPLE_RATE);
    for (let i = first; i < Math.min(last, samples.length); i++) {
      const edge = Math.min(i - first, last - 1 - i) / FADE_SAMPLES;
      const gain = edge >= 1 ? 1 : 0.5 - 0.5 * Math.cos(Math.PI * edge);
      samples[i] = (samples[i] ?? 0) + gain * amplitude * Math.sin((2 * Math.PI * hz * i) / SAMPLE_RATE);
    }
  }
  return samples;
}
