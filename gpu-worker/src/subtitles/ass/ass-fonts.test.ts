import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { FONT_FAMILIES, type FontFamily } from "@caption/shared/api/style";
import { assFontSize, linkBundledFonts, THIN_FACE_NAMES, WIN_METRICS_EM, type BundledFontFile } from "./ass-fonts.ts";
import { assFilter } from "./ass-filter.ts";
import { brightPixels, brightRows, grayFrame } from "../../testing/gray-frame.ts";

let dir = "";
let fontsDir = "";
let files: BundledFontFile[] = [];
before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "ass-fonts-"));
  fontsDir = path.join(dir, "fonts");
  files = await linkBundledFonts(fontsDir);
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

interface FaceMetrics {
  unitsPerEm: number;
  winAscent: number;
  winDescent: number;
  /** OS/2 sCapHeight; null where the table is too old to have it. */
  capHeight: number | null;
}

/** The few sfnt fields the sizes depend on: head.unitsPerEm and OS/2 usWinAscent, usWinDescent, sCapHeight. */
function faceMetrics(font: Buffer): FaceMetrics {
  const tables = new Map<string, number>();
  for (let i = 0; i < font.readUInt16BE(4); i++) {
    const record = 12 + 16 * i;
    tables.set(font.toString("latin1", record, record + 4), font.readUInt32BE(record + 8));
  }
  const head = tables.get("head");
  const os2 = tables.get("OS/2");
  if (head === undefined || os2 === undefined) throw new Error("font without head or OS/2 table");
  return {
    unitsPerEm: font.readUInt16BE(head + 18),
    winAscent: font.readUInt16BE(os2 + 74),
    winDescent: font.readUInt16BE(os2 + 76),
    capHeight: font.readUInt16BE(os2) >= 2 ? font.readInt16BE(os2 + 88) || null : null,
  };
}

const SCRIPT_HEADER = [
  "[Script Info]",
  "ScriptType: v4.00+",
  "PlayResX: 1300",
  "PlayResY: 600",
  "",
  "[V4+ Styles]",
  "Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, Encoding",
  "Style: Probe,Inter,100,&H00FFFFFF,&H00FFFFFF,&H00000000,&H00000000,0,0,0,0,100,100,0,0,1,0,0,7,0,0,0,1",
  "",
  "[Events]",
  "Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text",
];

/** Draws each `{tags}text` with libass at its top-left corner and returns the frame. */
async function drawWithLibass(name: string, items: readonly { x: number; y: number; text: string }[]) {
  const events = items.map((item) => `Dialogue: 0,0:00:00.00,0:00:01.00,Probe,,0,0,0,,{\\an7\\pos(${item.x},${item.y})}${item.text}`);
  const assPath = path.join(dir, `${name}.ass`);
  await writeFile(assPath, [...SCRIPT_HEADER, ...events, ""].join("\n"));
  return grayFrame({ input: ["-f", "lavfi", "-i", "color=c=black:s=1300x600:d=1"], filter: assFilter(assPath, fontsDir), atSeconds: 0, width: 1300, height: 600 });
}

test("every bundled family is linked, and the win metrics table is what its font files say", async () => {
  assert.deepEqual(new Set(files.map((f) => f.family)), new Set(FONT_FAMILIES));
  for (const file of files) {
    const metrics = faceMetrics(await readFile(file.path));
    const win = WIN_METRICS_EM[file.family];
    assert.equal(metrics.winAscent / metrics.unitsPerEm, win.ascent, `${path.basename(file.path)} ascent`);
    assert.equal(metrics.winDescent / metrics.unitsPerEm, win.descent, `${path.basename(file.path)} descent`);
  }
});

test("libass draws capitals as tall as the font's cap height at the em our renderer uses", async () => {
  const em = 100;
  const probes: { family: FontFamily; expected: number; x: number }[] = [];
  for (const family of FONT_FAMILIES) {
    const regular = files.find((f) => f.family === family && f.path.endsWith("_400Regular.ttf"));
    assert.ok(regular, `${family} has a regular face`);
    const metrics = faceMetrics(await readFile(regular.path));
    if (metrics.capHeight === null) continue;
    probes.push({ family, expected: (metrics.capHeight / metrics.unitsPerEm) * em, x: probes.length * 100 });
  }
  assert.ok(probes.length >= 10, "most families declare a cap height");
  const frame = await drawWithLibass(
    "cap-height",
    probes.map((p) => ({ x: p.x, y: 100, text: `{\\fn${p.family}\\fs${assFontSize(p.family, em)}}H` })),
  );
  for (const probe of probes) {
    const rows = brightRows(frame, { x: probe.x, y: 0, width: 100, height: 600 });
    assert.ok(Math.abs(rows - probe.expected) <= 2, `${probe.family}: H is ${rows} px tall, its cap height is ${probe.expected.toFixed(1)} px`);
  }
});

test("libass finds the light faces by the names the thin weight uses", async () => {
  const families = Object.keys(THIN_FACE_NAMES) as FontFamily[];
  const frame = await drawWithLibass(
    "thin-faces",
    families.flatMap((family, i) => {
      const size = `\\fs${assFontSize(family, 100)}`;
      return [
        { x: i * 300, y: 0, text: `{${size}\\fn${THIN_FACE_NAMES[family]}\\b0}HHH` },
        { x: i * 300, y: 300, text: `{${size}\\fn${family}\\b0}HHH` },
      ];
    }),
  );
  families.forEach((family, i) => {
    const thin = brightPixels(frame, { x: i * 300, y: 0, width: 300, height: 300 });
    const regular = brightPixels(frame, { x: i * 300, y: 300, width: 300, height: 300 });
    assert.ok(regular > 0, `${family} regular drawn`);
    // A name libass does not know falls back to a regular sans: as heavy as the regular face.
    assert.ok(thin > 0 && thin < 0.85 * regular, `${family}: thin ${thin} px vs regular ${regular} px`);
  });
});
