// A pocketsphinx decoder biased toward a job's terms, in a process of its own: a modified decoder is safe once
// per process (two in one process crashed), and a crash takes only this process down.
// Protocol (JSON lines): stdin gets the setup, then { id, file } per utterance (16 kHz mono s16le); stdout
// answers { ready } once, then { id, words } or { id, error } per utterance.
import { readFile } from "node:fs/promises";
import { createInterface } from "node:readline";
import { loadLibpocketsphinx } from "./libpocketsphinx.ts";

export interface BiasedDecoderSetup {
  acousticModel: string;
  languageModel: string;
  /** The model's dictionary with the terms' pronunciations appended. */
  dictionary: string;
  /** A unigram language model (ARPA) of the terms' words. */
  termsModel: string;
  /** Its share in the interpolation with the model's own language model. */
  termsWeight: number;
}

export interface DecodedSegment {
  word: string;
  startFrame: number;
  endFrame: number;
  posterior: number;
}

// ngram_model_read's file types.
const NGRAM_AUTO = 0;
const NGRAM_ARPA = 1;
const BIASED_SEARCH = "biased";

function send(message: object): void {
  process.stdout.write(`${JSON.stringify(message)}\n`);
}

const lib = loadLibpocketsphinx();
let decoder: unknown = null;
let logmath: unknown = null;

function setUp(setup: BiasedDecoderSetup): void {
  const argv = ["pocketsphinx", "-hmm", setup.acousticModel, "-lm", setup.languageModel, "-dict", setup.dictionary, "-remove_silence", "no", "-logfn", "/dev/null"];
  const config = lib.cmd_ln_parse_r(null, lib.ps_args(), argv.length, argv, 1);
  if (!config) throw new Error("pocketsphinx refused its configuration");
  decoder = lib.ps_init(config);
  if (!decoder) throw new Error("pocketsphinx could not load its models");
  // The terms' model is interpolated with the model's own, as a new search. Adding words to the loaded model
  // (ngram_model_add_word) corrupted memory once more than a few were added.
  logmath = lib.ps_get_logmath(decoder);
  const base = lib.ngram_model_read(config, setup.languageModel, NGRAM_AUTO, logmath);
  const terms = lib.ngram_model_read(config, setup.termsModel, NGRAM_ARPA, logmath);
  if (!base || !terms) throw new Error("pocketsphinx could not read the language models");
  const set = lib.ngram_model_set_init(config, [base, terms], ["base", "terms"], new Float32Array([1 - setup.termsWeight, setup.termsWeight]), 2);
  if (!set || lib.ps_set_lm(decoder, BIASED_SEARCH, set) < 0 || lib.ps_set_search(decoder, BIASED_SEARCH) < 0) throw new Error("pocketsphinx refused the biased language model");
}

async function decode(file: string): Promise<DecodedSegment[]> {
  const bytes = await readFile(file);
  const pcm = new Int16Array(bytes.buffer, bytes.byteOffset, Math.floor(bytes.length / 2));
  if (lib.ps_start_utt(decoder) < 0 || lib.ps_process_raw(decoder, pcm, pcm.length, 0, 1) < 0 || lib.ps_end_utt(decoder) < 0) {
    throw new Error("pocketsphinx failed to decode the utterance");
  }
  const segments: DecodedSegment[] = [];
  for (let seg = lib.ps_seg_iter(decoder); seg; seg = lib.ps_seg_next(seg)) {
    const start: [number] = [0];
    const end: [number] = [0];
    lib.ps_seg_frames(seg, start, end);
    const posterior = lib.logmath_exp(logmath, lib.ps_seg_prob(seg, null, null, null));
    segments.push({ word: lib.ps_seg_word(seg), startFrame: start[0], endFrame: end[0], posterior });
  }
  return segments;
}

for await (const line of createInterface({ input: process.stdin })) {
  const message = JSON.parse(line) as BiasedDecoderSetup | { id: string; file: string };
  if ("file" in message) {
    try {
      send({ id: message.id, words: await decode(message.file) });
    } catch (error) {
      send({ id: message.id, error: error instanceof Error ? error.message : String(error) });
    }
  } else {
    setUp(message);
    send({ ready: true });
  }
}
