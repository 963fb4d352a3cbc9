// The subtitle files of real recognised speech, normal and fast, on every preset and profile: what the SRT and
// WebVTT say, read back, breaks no rule of the profile but those the quality report lists for that cue.
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { execa } from "execa";
import { Value } from "@sinclair/typebox/value";
import { PRESET_IDS } from "@caption/shared/api/preset";
import { QualityReportSchema } from "@caption/shared/api/quality-report";
import { SUBTITLE_PROFILE_IDS, SUBTITLE_PROFILES } from "@caption/shared/api/subtitle-profile";
import type { Word } from "@caption/shared/api/transcript";
import { resolveStyle } from "@caption/shared/style/resolve-style";
import { createPocketsphinxEngine } from "../asr/pocketsphinx-engine.ts";
import { transcribeAudio, type TranscribedAudio } from "../asr/transcribe-audio.ts";
import { decodePcm16kMono } from "../media/audio-pcm.ts";
import type { Cue } from "../render/cue-builder.ts";
import { parseWebVtt } from "../testing/webvtt.ts";
import { cuesRuleBreaks, ruleLimits } from "./layout/subtitle-rules.ts";
import { parseSrt } from "./srt.ts";
import { subtitleFiles } from "./subtitle-files.ts";

const TEXT =
  "Welcome back to the channel. Today we bake bread with four simple things: flour, water, salt and time. " +
  "Knead it for ten minutes, then let it rest. Extraordinarily, the crust decides everything, so stay until the end.";
const FRAME_RATE = 30;
let dir: string;
const clips: { name: string; transcribed: TranscribedAudio; duration: number }[] = [];

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "subtitle-files-"));
  const engine = createPocketsphinxEngine();
  const signal = new AbortController().signal;
  try {
    // flite's slt voice at its own pace, and squeezed to 55 % of it: faster than any reading speed allows.
    for (const [name, stretch] of [["normal", 1], ["fast", 0.55]] as const) {
      const wav = join(dir, `${name}.wav`);
      await execa("flite", ["-voice", "slt", "--setf", `duration_stretch=${stretch}`, "-t", TEXT, "-o", wav]);
      // The worker decodes only the containers it accepts from users.
      const audio = join(dir, `${name}.mka`);
      await execa("ffmpeg", ["-v", "error", "-i", wav, "-c:a", "pcm_s16le", "-y", audio]);
      const transcribed = await transcribeAudio({ pcm: decodePcm16kMono(audio, { signal }), engine, language: "en", signal });
      clips.push({ name, transcribed, duration: transcribed.duration });
    }
  } finally {
    await engine.close();
  }
});
after(() => rm(dir, { recursive: true, force: true }));

/** The files' cues read back, each holding the report's words in order (their times are the words'). */
function cuesFromFile(entries: readonly { start: number; end: number; text: string }[], words: readonly Word[]): Cue[] {
  let next = 0;
  return entries.map((entry) => ({
    start: entry.start,
    end: entry.end,
    lines: entry.text.split("\n").map((line) => ({
      words: line.split(" ").map((text) => {
        const word = words[next++]!;
        assert.equal(text, word.text);
        return { text, start: word.start, end: word.end };
      }),
    })),
  }));
}

test("on every preset and profile the SRT and WebVTT break only the rules the quality report names, cue by cue", () => {
  assert.equal(clips.length, 2);
  for (const clip of clips) {
    assert.ok(clip.transcribed.words.length >= 25, `${clip.name}: ${clip.transcribed.words.length} words`);
    for (const profile of SUBTITLE_PROFILE_IDS) {
      const limits = ruleLimits(SUBTITLE_PROFILES[profile], FRAME_RATE);
      const outputs = new Set<string>();
      for (const preset of PRESET_IDS) {
        const style = resolveStyle({ preset, style: {}, video: { width: 1080, height: 1920 } });
        const files = subtitleFiles({
          jobId: "job_test",
          profile,
          frameRate: FRAME_RATE,
          durationSeconds: clip.duration,
          style,
          words: clip.transcribed.words,
          speech: clip.transcribed.speech,
          engine: { name: "pocketsphinx", model: "cmusphinx-en-us-5.2" },
          vocabulary: { terms: [], biasing: "none", not_biased: [] },
        });
        assert.ok(Value.Check(QualityReportSchema, files.report), [...Value.Errors(QualityReportSchema, files.report)].map((e) => e.path).join());
        for (const [format, entries] of [["srt", parseSrt(files.srt)], ["vtt", parseWebVtt(files.vtt)]] as const) {
          const cues = cuesFromFile(entries, clip.transcribed.words);
          assert.equal(cues.length, files.report.cues.length);
          cuesRuleBreaks(cues, limits).forEach((breaks, i) => {
            const reported = files.report.cues[i]!.breaks.map((b) => b.rule);
            for (const b of breaks) assert.ok(reported.includes(b.rule), `${clip.name} ${profile} ${preset} ${format} cue ${i + 1} breaks ${b.rule} unreported: ${JSON.stringify(b)}`);
          });
        }
        outputs.add(files.srt + files.vtt);
      }
      // The files follow the profile, not the preset: one word at a time in smash's picture, whole cues here.
      assert.equal(outputs.size, 1, "every preset gives the same SRT and WebVTT");
      const report = subtitleFiles({ jobId: "j", profile, frameRate: FRAME_RATE, durationSeconds: clip.duration, style: resolveStyle({ preset: "smash", style: {}, video: { width: 1080, height: 1920 } }), words: clip.transcribed.words, speech: clip.transcribed.speech, engine: { name: "pocketsphinx", model: "m" }, vocabulary: { terms: [], biasing: "none", not_biased: [] } }).report;
      assert.ok(report.summary.cues < clip.transcribed.words.length / 3, `${report.summary.cues} cues for ${clip.transcribed.words.length} words`);
      // flite speaks about 215 words a minute without a pause: within 20 characters a second, above the BBC's 180 words a minute.
      const broken = report.cues.flatMap((c) => c.breaks);
      if (clip.name === "normal" && profile !== "bbc") assert.deepEqual(broken, [], profile);
      else assert.ok(broken.length > 0 && broken.every((b) => b.rule === "reading_speed" || b.rule === "min_duration"), `${clip.name} ${profile}: ${JSON.stringify(broken)}`);
    }
  }
});
