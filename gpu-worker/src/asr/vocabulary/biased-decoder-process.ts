// A pocketsphinx decoder biased toward a job's terms, in a process of its own: changing a loaded decoder's
// dictionary and language model is safe once per process (two modified decoders in one process crashed).
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
  /** Dictionary words raised in the language model. */
  boost: string[];
  /** Their weight relative to a uniform unigram (must stay below the model's vocabulary size). */
  weight: number;
}

export interface DecodedSegment {
  word: string;
  startFrame: number;
  endFrame: number;
  posterior: number;
}

// A word added with ps_add_word so the search picks up the language model's new words (ps_add_word rebuilds
// it): a filler-looking word with a silence pronunciation, which the caller drops like any filler. The terms
// themselves must not go through ps_add_word too: the same word added both ways corrupts memory.
const REBUILD_WORD = "++bias++";

function send(message: object): void {
  process.stdout.write(`${JSON.stringify(message)}\n`);
}

const lib = loadLibpocketsphinx();
let decoder: unknown = null;
let logmath: unknown = null;

function setUp(setup: BiasedDecoderSetup): number {
  const argv = ["pocketsphinx", "-hmm", setup.acousticModel, "-lm", setup.languageModel, "-dict", setup.dictionary, "-remove_silence", "no", "-logfn", "/dev/null"];
  const config = lib.cmd_ln_parse_r(null, lib.ps_args(), argv.length, argv, 1);
  if (!config) throw new Error("pocketsphinx refused its configuration");
  decoder = lib.ps_init(config);
  if (!decoder) throw new Error("pocketsphinx could not load its models");
  const search = lib.ps_get_search(decoder);
  const lm = search === null ? null : lib.ps_get_lm(decoder, search);
  if (!lm) throw new Error("pocketsphinx has no language model to bias");
  let boosted = 0;
  for (const word of setup.boost) if (lib.ngram_model_add_word(lm, word, setup.weight) >= 0) boosted++;
  if (lib.ps_add_word(decoder, REBUILD_WORD, "SIL", 1) < 0) throw new Error("pocketsphinx could not rebuild its search");
  logmath = lib.ps_get_logmath(decoder);
  return boosted;
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
    segments.push({ word: lib.ps_seg_word(seg), startFrame: start[0], endFrame: end[0], posterior: lib.logmath_exp(logmath, lib.ps_seg_prob(seg, null, null, null)) });
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
    send({ ready: true, boosted: setUp(message) });
  }
}
