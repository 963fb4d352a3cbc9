// `npm run bench:vocabulary [-- --worst-case-only]`: how many of 20 rare terms pocketsphinx gets right without and
// with a job's vocabulary (flite speech, one sentence per term), what the quality report adds to a job's time, and
// the post-pass on the worst vocabulary the schema allows: its time and work, and the API's /healthz beside it.
// A benchmark, not a test: prints the counts and ratios, exits 0 (1 only if it could not run).
import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Word } from "@caption/shared/api/transcript";
import { parseCommandLine } from "@caption/shared/runtime/command-line";
import { createCliLogger } from "@caption/shared/runtime/logger";
import { resolveStyle } from "@caption/shared/style/resolve-style";
import { createPocketsphinxEngine, defaultPhoneticLexicon, transcribeAudio, type SpeechEngine } from "@caption/gpu-worker/asr";
import { decodePcm16kMono, probeMedia, X264_ENCODER } from "@caption/gpu-worker/media";
import { buildStyledCues, renderCaptionedVideo } from "@caption/gpu-worker/render";
import { subtitleFiles } from "@caption/gpu-worker/subtitles";
import { composeSpeech, makeSpeechVideo } from "@caption/gpu-worker/testing";
import { createWordPass } from "@caption/gpu-worker/words";
import { BENCH_SENTENCES } from "../vocabulary/bench-terms.ts";
import { measureWorstCase } from "../vocabulary/worst-case.ts";

const options = parseCommandLine({ options: { "worst-case-only": { type: "boolean", default: false }, help: { type: "boolean", short: "h" } } }, "usage: vocabulary-bench [--worst-case-only]");
if (typeof options === "number") process.exit(options);
if (options["worst-case-only"]) {
  await measureWorstCase(await defaultPhoneticLexicon());
  process.exit(0);
}

const log = createCliLogger("info");
const terms = BENCH_SENTENCES.map((s) => s.term);
const bare = (text: string) => text.toLowerCase().replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, "");
const signal = new AbortController().signal;

/** The terms whose words appear, in order and as written (case aside), among the words of their own sentence. */
function termsRight(words: readonly Word[], sentences: readonly { start: number; end: number }[]): string[] {
  return BENCH_SENTENCES.flatMap(({ term }, i) => {
    const { start, end } = sentences[i]!;
    const said = words.filter((w) => w.start >= start - 0.3 && w.start < end + 0.3).map((w) => bare(w.text)).join(" ");
    return ` ${said} `.includes(` ${term.toLowerCase()} `) ? [term] : [];
  });
}

async function transcribe(engine: SpeechEngine, audioPath: string, vocabulary?: readonly string[]) {
  const started = performance.now();
  const { words, speech } = await transcribeAudio({ pcm: decodePcm16kMono(audioPath, { signal }), engine, language: "en", signal, ...(vocabulary ? { vocabulary } : {}) });
  return { words, speech, ms: performance.now() - started };
}

const engine = createPocketsphinxEngine();
const fixture = await composeSpeech(BENCH_SENTENCES.map(({ text }) => ({ text, silenceBefore: 0.8 })));
try {
  const lexicon = await defaultPhoneticLexicon();
  const pass = await createWordPass({ vocabulary: terms, replacements: {}, profanity: "keep" }, lexicon, { seconds: fixture.duration, signal });
  log.info(`speech: ${fixture.duration.toFixed(1)} s, ${terms.length} terms; decoding 2 x`);

  const plain = await transcribe(engine, fixture.path);
  const snappedOnly = await pass(plain.words);
  const biased = await transcribe(engine, fixture.path, terms);
  const both = await pass(biased.words);
  await pass.close();
  const counts = {
    without: termsRight(plain.words, fixture.sentences),
    post_pass_only: termsRight(snappedOnly, fixture.sentences),
    biasing_only: termsRight(biased.words, fixture.sentences),
    with_vocabulary: termsRight(both, fixture.sentences),
  };
  console.log("\nterms right, of 20 (pocketsphinx, flite voice slt)");
  for (const [name, right] of Object.entries(counts)) console.log(`  ${name.padEnd(16)} ${String(right.length).padStart(2)}  missed: ${terms.filter((t) => !right.includes(t)).join(", ") || "none"}`);
  console.log(`  decode time: without ${(plain.ms / 1000).toFixed(1)} s, with vocabulary ${(biased.ms / 1000).toFixed(1)} s (${(biased.ms / plain.ms).toFixed(2)}x)`);
  const work = pass.work!;
  console.log(`  post-pass work (both passes): ${work.used} units of the ${(work.budget / 1e6).toFixed(0)} M budget of a ${fixture.duration.toFixed(1)} s clip (${((100 * work.used) / work.budget).toFixed(2)} %)`);

  // What the quality report adds to a job: the job's own work on a clip of the same speech (recognition and the
  // render), against building the report and writing its file.
  const video = await makeSpeechVideo({ text: BENCH_SENTENCES.map((s) => s.text).join(" "), width: 1080, height: 1920, fps: 30 });
  const media = await probeMedia(video.path);
  const job = await transcribe(engine, video.path);
  const style = resolveStyle({ preset: "classic", video: { width: media.width, height: media.height } });
  const renderStarted = performance.now();
  await renderCaptionedVideo({ inputPath: video.path, outputPath: path.join(tmpdir(), "vocabulary-bench.mp4"), cues: buildStyledCues(job.words, style, media.durationSeconds), style, media, encoder: X264_ENCODER });
  const renderMs = performance.now() - renderStarted;
  const files = subtitleFiles({
    jobId: "job_bench",
    profile: "netflix",
    frameRate: media.frameRate,
    durationSeconds: media.durationSeconds,
    style,
    words: job.words,
    speech: job.speech,
    engine: { name: engine.name, model: engine.model },
    vocabulary: { terms: [], biasing: "none", not_biased: [] },
  });
  const written = performance.now();
  await writeFile(path.join(tmpdir(), "vocabulary-bench-quality.json"), JSON.stringify(files.report));
  const reportMs = files.reportMs + (performance.now() - written);
  const jobMs = job.ms + renderMs;
  const share = (ms: number) => `${ms.toFixed(1)} ms = ${((100 * ms) / jobMs).toFixed(3)} %`;
  console.log(`\non a ${media.durationSeconds.toFixed(1)} s 1080x1920 clip, of recognition + render (${(jobMs / 1000).toFixed(1)} s): quality report built and written ${share(reportMs)}, profile layout ${share(files.layoutMs)}`);

  await measureWorstCase(lexicon);
} finally {
  await engine.close();
  await fixture.dispose();
}
