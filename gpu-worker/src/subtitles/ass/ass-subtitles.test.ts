import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { PRESET_IDS, type PresetId } from "@caption/shared/api/preset";
import type { Style } from "@caption/shared/api/style";
import { resolveStyle } from "@caption/shared/style/resolve-style";
import { skiaFontMeasure } from "../../render/font-measure.ts";
import { buildCues, type Cue } from "../../render/cue-builder.ts";
import { assSubtitles } from "./ass-subtitles.ts";
import { assFontSize, WIN_METRICS_EM } from "./ass-fonts.ts";
import { alphaByte, assNumber, assStyleColor, centiseconds } from "./ass-format.ts";

const PORTRAIT = { width: 1080, height: 1920 };

function styleOf(preset: PresetId, style: Style = {}, video = PORTRAIT) {
  return resolveStyle({ preset, style, video });
}

/** A cue from lines of [text, start, end] words. */
function cue(start: number, end: number, lines: [string, number, number][][]): Cue {
  return { start, end, lines: lines.map((words) => ({ words: words.map(([text, s, e]) => ({ text, start: s, end: e })) })) };
}

interface Dialogue {
  layer: number;
  start: string;
  end: string;
  startCs: number;
  endCs: number;
  style: string;
  text: string;
}

/** The script's [Script Info] fields, styles by name (fields by the Format line) and dialogues. */
function parseScript(script: string) {
  const info = new Map<string, string>();
  const styles = new Map<string, Record<string, string>>();
  const dialogues: Dialogue[] = [];
  let section = "";
  let styleFormat: string[] = [];
  for (const line of script.split("\n")) {
    if (line.startsWith("[")) section = line;
    else if (section === "[Script Info]" && /^\w[^:]*: /u.test(line)) info.set(line.slice(0, line.indexOf(":")), line.slice(line.indexOf(":") + 2));
    else if (section === "[V4+ Styles]" && line.startsWith("Format: ")) styleFormat = line.slice(8).split(", ");
    else if (line.startsWith("Style: ")) {
      const values = line.slice(7).split(",");
      styles.set(values[0]!, Object.fromEntries(styleFormat.map((name, i) => [name, values[i]!])));
    } else if (line.startsWith("Dialogue: ")) {
      const fields = line.slice(10).split(",");
      const [layer, start, end, style] = fields;
      dialogues.push({ layer: Number(layer), start: start!, end: end!, startCs: csOf(start!), endCs: csOf(end!), style: style!, text: fields.slice(9).join(",") });
    }
  }
  return { info, styles, dialogues };
}

function csOf(time: string): number {
  const [h, m, s] = time.split(":");
  return Number(h) * 360_000 + Number(m) * 6_000 + Math.round(Number(s) * 100);
}

test("the script plays at the video size, keeps our line breaks and scales borders with it", () => {
  const { info } = parseScript(assSubtitles([], styleOf("classic", {}, { width: 1280, height: 720 })));
  assert.equal(info.get("ScriptType"), "v4.00+");
  assert.equal(info.get("PlayResX"), "1280");
  assert.equal(info.get("PlayResY"), "720");
  assert.equal(info.get("WrapStyle"), "2");
  assert.equal(info.get("ScaledBorderAndShadow"), "yes");
});

test("the text style carries the resolved font, size, weight, colours, outline and placement", () => {
  const style = styleOf("classic");
  const { styles } = parseScript(assSubtitles([], style));
  assert.deepEqual([...styles.keys()], ["Text"]);
  const text = styles.get("Text")!;
  const fontPx = style.font_size * style.final_scale;
  const ours = skiaFontMeasure(style);
  assert.equal(text.Fontname, "Inter");
  assert.equal(text.Fontsize, assNumber(assFontSize("Inter", fontPx)));
  assert.equal(text.Bold, "-1");
  assert.equal(text.Italic, "0");
  assert.equal(text.PrimaryColour, "&H00FFFFFF");
  assert.equal(text.OutlineColour, "&H00000000");
  assert.equal(text.BorderStyle, "1");
  assert.equal(text.Outline, "6");
  assert.equal(text.Shadow, "0");
  assert.equal(text.Alignment, "2");
  assert.equal(text.MarginL, "90");
  assert.equal(text.MarginR, "90");
  // The bottom inset (20% of the height), less the difference between libass's and our descent.
  assert.equal(text.MarginV, String(Math.round(384 - (WIN_METRICS_EM.Inter.descent - ours.descent) * fontPx)));
});

test("italic, a hard shadow and top or left placement reach the style and events", () => {
  const action = parseScript(assSubtitles([cue(0, 1, [[["go", 0, 1]]])], styleOf("action", { position: "top", horizontal_position: "left" })));
  const text = action.styles.get("Text")!;
  assert.equal(text.Fontname, "Bebas Neue");
  assert.equal(text.Italic, "-1");
  assert.equal(text.Bold, "0");
  assert.equal(text.Alignment, "7");
  assert.equal(text.MarginL, "90");
  // Angle 45°: the shadow falls right and down alike.
  assert.equal(text.Shadow, "6");
  assert.match(action.dialogues[0]!.text, /^\{\\xshad4\.24\\yshad4\.24\}/u);
});

test("presets that highlight the active word get one event per word state, the active word in the highlight colour", () => {
  const style = styleOf("highlight");
  const script = assSubtitles([cue(1, 2.5, [[["Watch", 1, 1.4], ["these", 1.5, 1.9]], [["words", 2, 2.4]]])], style);
  const { dialogues } = parseScript(script);
  assert.deepEqual(
    dialogues.map((d) => [d.start, d.end, d.text]),
    [
      ["0:00:01.00", "0:00:01.50", "{\\c&H00D4FF&}WATCH {\\c&HFFFFFF&}THESE\\NWORDS"],
      ["0:00:01.50", "0:00:02.00", "WATCH {\\c&H00D4FF&}THESE\\N{\\c&HFFFFFF&}WORDS"],
      ["0:00:02.00", "0:00:02.50", "WATCH THESE\\N{\\c&H00D4FF&}WORDS"],
    ],
  );
});

test("static presets get one event per cue, cased and escaped as drawn", () => {
  const cues = [cue(0.5, 1.2, [[["hello", 0.5, 0.8], ["{world}", 0.9, 1.2]]]), cue(1.2, 2, [[["c:\\new", 1.2, 1.6]], [["o'clock", 1.6, 2]]])];
  const plain = parseScript(assSubtitles(cues, styleOf("classic"))).dialogues;
  assert.deepEqual(
    plain.map((d) => [d.start, d.end, d.text]),
    [
      ["0:00:00.50", "0:00:01.20", "hello \\{world\\}"],
      ["0:00:01.20", "0:00:02.00", "c:\\\u2060new\\No'clock"],
    ],
  );
  const capitalized = parseScript(assSubtitles(cues, styleOf("classic", { text_case: "capitalize" }))).dialogues;
  assert.deepEqual(capitalized.map((d) => d.text), ["Hello \\{World\\}", "C:\\\u2060new\\NO'clock"]);
});

test("a cue that runs into the next one ends where the next begins", () => {
  const cues = [cue(0, 1.5, [[["first", 0, 1.5]]]), cue(1.2, 2, [[["second", 1.2, 2]]])];
  const { dialogues } = parseScript(assSubtitles(cues, styleOf("classic")));
  assert.deepEqual(dialogues.map((d) => [d.start, d.end]), [["0:00:00.00", "0:00:01.20"], ["0:00:01.20", "0:00:02.00"]]);
});

test("a background becomes a box layer under the text, in the background colour and opacity", () => {
  const style = styleOf("background");
  const { styles, dialogues } = parseScript(assSubtitles([cue(0, 1, [[["boxed", 0, 1]]])], style));
  const box = styles.get("Background")!;
  assert.equal(box.BorderStyle, "3");
  assert.equal(box.OutlineColour, assStyleColor(style.background.color, alphaByte(style.background.opacity)));
  assert.equal(box.PrimaryColour?.slice(0, 4), "&HFF", "the box layer's text is invisible");
  const fontPx = style.font_size * style.final_scale;
  assert.deepEqual(
    dialogues.map((d) => [d.layer, d.style, d.text]),
    [
      [0, "Background", `{\\xbord${assNumber(0.3 * fontPx)}\\ybord${assNumber(0.08 * fontPx)}}boxed`],
      [1, "Text", "boxed"],
    ],
  );
});

test("a blurred shadow is drawn on its own layer from a barely visible fill; a glow keeps a hair of offset", () => {
  const style = styleOf("glow");
  const { styles, dialogues } = parseScript(assSubtitles([cue(0, 1, [[["glow", 0, 1]]])], style));
  const shadow = styles.get("Shadow")!;
  assert.equal(shadow.PrimaryColour?.slice(0, 4), "&HFE");
  assert.equal(shadow.BackColour, assStyleColor(style.shadow.color));
  assert.equal(styles.get("Text")!.Shadow, "0");
  // Canvas blur b is a Gaussian of σ = b/2; libass's \blur 1 is σ = 2/√ln 256.
  const blur = (style.shadow.blur * style.final_scale) / 2 / (2 / Math.sqrt(Math.log(256)));
  assert.equal(dialogues[0]!.style, "Shadow");
  assert.ok(dialogues[0]!.text.startsWith(`{\\xshad0\\yshad0.01\\blur${assNumber(blur)}}`), dialogues[0]!.text);
  assert.equal(dialogues[1]!.style, "Text");
});

test("karaoke fills each word from its start to its end in one event per cue", () => {
  const style = styleOf("karaoke");
  const { styles, dialogues } = parseScript(assSubtitles([cue(1, 3, [[["sing", 1.2, 1.6], ["along", 1.75, 2.3]]])], style));
  const text = styles.get("Text")!;
  assert.equal(text.PrimaryColour, assStyleColor(style.highlight_color));
  assert.equal(text.SecondaryColour, assStyleColor(style.text_color));
  const karaoke = dialogues.filter((d) => d.style === "Text");
  assert.deepEqual(karaoke.map((d) => [d.start, d.end, d.text]), [["0:00:01.00", "0:00:03.00", "{\\k20\\kf40}sing{\\k15} {\\kf55}along"]]);
});

test("pops and fades are libass transitions timed from the event start, continued across word states", () => {
  const style = styleOf("smash", { line_count: 1 });
  const { dialogues } = parseScript(assSubtitles([cue(1, 2, [[["big", 1, 1.1], ["pop", 1.1, 2]]])], style));
  assert.deepEqual(
    dialogues.map((d) => d.text),
    [
      "{\\fscx40\\fscy40\\t(0,104,\\fscx106\\fscy106)\\t(104,180,\\fscx100\\fscy100)}big {\\fscx100\\fscy100\\alpha&HFF&}pop",
      "{\\fscx40\\fscy40\\t(-100,4,\\fscx106\\fscy106)\\t(4,80,\\fscx100\\fscy100)}big {\\fscx40\\fscy40\\t(0,104,\\fscx106\\fscy106)\\t(104,180,\\fscx100\\fscy100)}pop",
    ],
  );
});

test("the active-word box is a box layer shown behind the active word only, not the space after it", () => {
  const { styles, dialogues } = parseScript(assSubtitles([cue(0, 1, [[["one", 0, 0.5], ["two", 0.5, 1]]])], styleOf("box")));
  assert.equal(styles.get("WordBox")!.BorderStyle, "3");
  const boxes = dialogues.filter((d) => d.style === "WordBox").map((d) => d.text.replace(/^\{[^}]*\}/u, ""));
  assert.deepEqual(boxes, ["{\\3a&H00&}one{\\3a&HFF&} two", "one {\\3a&H00&}two"]);
});

test("thin&bold draws the active word bold and the others in the light face, on every layer", () => {
  const { dialogues } = parseScript(assSubtitles([cue(0, 1, [[["thin", 0, 0.5], ["bold", 0.5, 1]]])], styleOf("thin&bold")));
  const second = dialogues.filter((d) => d.startCs === 50);
  assert.deepEqual(new Set(second.map((d) => d.style)), new Set(["Shadow", "Text"]));
  for (const d of second) assert.ok(d.text.endsWith("{\\fnInter ExtraLight\\b0}THIN {\\fnInter\\b1}BOLD"), d.text);
});

test("a middle caption moved by an offset, which margins cannot place, gets \\pos", () => {
  const moved = parseScript(assSubtitles([cue(0, 1, [[["up", 0, 1]]])], styleOf("ogre", { offset: { bottom: 100 } })));
  assert.equal(moved.styles.get("Text")!.Alignment, "5");
  assert.ok(moved.dialogues[0]!.text.startsWith("{\\pos(540,860)}{\\fscx50"), moved.dialogues[0]!.text);
  const still = parseScript(assSubtitles([cue(0, 1, [[["up", 0, 1]]])], styleOf("ogre")));
  assert.ok(still.dialogues[0]!.text.startsWith("{\\fscx50"), still.dialogues[0]!.text);
});

test("for every preset, each layer's events tile every cue without gaps or overlaps", () => {
  const timedWords = fc
    .array(fc.record({ gap: fc.integer({ min: 0, max: 120 }), length: fc.integer({ min: 1, max: 90 }), text: fc.constantFrom("a", "word", "longer", "{x}", "end.") }), {
      minLength: 1,
      maxLength: 25,
    })
    .map((specs) => {
      let t = 0;
      // Times in milliseconds with odd values, so centisecond rounding is exercised.
      return specs.map(({ gap, length, text }) => {
        const start = (t += gap * 7) / 1000;
        const end = (t += length * 7) / 1000;
        return { text, start, end };
      });
    });
  fc.assert(
    fc.property(fc.constantFrom(...PRESET_IDS), timedWords, fc.constantFrom(0, 1, 2, 3), (preset, words, lineCount) => {
      const style = styleOf(preset, { line_count: lineCount as 0 | 1 | 2 | 3 });
      const cues = buildCues(words, { lineCount, maxLineWidth: 300, measure: (text) => text.length * 40 });
      const { dialogues } = parseScript(assSubtitles(cues, style));
      const spans = cues
        .map((c, i) => ({ start: centiseconds(c.start), end: Math.min(centiseconds(c.end), centiseconds(cues[i + 1]?.start ?? Infinity)) }))
        .filter((s) => s.end > s.start);
      for (const layer of new Set(dialogues.map((d) => d.layer))) {
        const events = dialogues.filter((d) => d.layer === layer);
        for (let i = 1; i < events.length; i++) assert.ok(events[i - 1]!.endCs <= events[i]!.startCs, `${preset} layer ${layer}: events ${i - 1} and ${i} overlap`);
        for (const span of spans) {
          const inside = events.filter((e) => e.startCs >= span.start && e.endCs <= span.end);
          assert.equal(inside[0]?.startCs, span.start, `${preset} layer ${layer}: a cue starts without an event`);
          assert.equal(inside.at(-1)?.endCs, span.end, `${preset} layer ${layer}: a cue ends early`);
          inside.forEach((e, k) => k > 0 && assert.equal(e.startCs, inside[k - 1]!.endCs, `${preset} layer ${layer}: gap between states`));
        }
        assert.equal(events.length, events.filter((e) => spans.some((s) => e.startCs >= s.start && e.endCs <= s.end)).length);
      }
    }),
    { numRuns: 150 },
  );
});
