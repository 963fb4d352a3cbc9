import type { FileHandle } from "node:fs/promises";
import { findBox, fullBox, parseBoxes, topLevelBoxes, type Box, type BoxExtent } from "./mov-boxes.ts";

// A one-track movie whose frames are held between changes (encoded only where the picture changed, on the
// video's frame grid) made constant-rate without encoding anything again: each frame of the video becomes a
// sample of its own, and the frames of an unchanged stretch all point at the one encoded picture. Editors
// that expect one sample per frame (Resolve, Premiere) then read it like any other constant-rate file.

export interface ConstantRate {
  /** Frames the movie holds, from its first. */
  frames: number;
  frameRate: { num: number; den: number };
}

export interface Sample {
  offset: number;
  size: number;
  /** Start, in the media's timescale. */
  time: number;
}

export interface MovieBox {
  moov: Box;
  /** The boxes before it (it is last of the file, as ffmpeg writes it without faststart). */
  before: BoxExtent[];
}

/** The movie box of a file whose sample data comes first, parsed. */
export async function readMovieBox(file: FileHandle, name: string): Promise<MovieBox> {
  const boxes = await topLevelBoxes(file);
  const extent = boxes.at(-1);
  if (extent?.type !== "moov") throw new Error(`${name}: the movie box is not last (${boxes.map((b) => b.type).join(",")})`);
  const bytes = Buffer.alloc(extent.size);
  await file.read(bytes, 0, extent.size, extent.offset);
  const [moov] = parseBoxes(bytes) as [Box];
  return { moov, before: boxes.slice(0, -1) };
}

/** A picture stored in the file: its bytes, and the frame of the video it shows from. */
export interface StoredSample {
  offset: number;
  size: number;
  frame: number;
}

/**
 * The movie box with its one track's sample tables listing `rate.frames` samples of one frame each: each
 * frame the last of `stored` (in order of frame, the first at frame 0) at or before it.
 */
export function constantRateMoov(moov: Box, rate: ConstantRate, stored: readonly StoredSample[]): Box {
  const traks = moov.children?.filter((box) => box.type === "trak") ?? [];
  if (traks.length !== 1) throw new Error(`expected one track, found ${traks.length}`);
  const trak = traks[0]!;
  const mdhd = required(findBox([trak], "trak", "mdia", "mdhd"), "mdhd");
  const stbl = required(findBox([trak], "trak", "mdia", "minf", "stbl"), "stbl");
  const mvhd = required(findBox([moov], "moov", "mvhd"), "mvhd");
  const mediaScale = timescaleOf(mdhd);
  const frameTicks = (mediaScale * rate.frameRate.den) / rate.frameRate.num;
  if (!Number.isInteger(frameTicks)) throw new Error(`a frame at ${rate.frameRate.num}/${rate.frameRate.den} is not a whole number of ticks of ${mediaScale}`);
  if (stored[0]?.frame !== 0 || stored.some((sample, i) => i > 0 && sample.frame <= stored[i - 1]!.frame)) throw new Error("stored samples must start at frame 0, in order");
  const expanded: StoredSample[] = [];
  for (let frame = 0, next = 0; frame < rate.frames; frame++) {
    while (next + 1 < stored.length && stored[next + 1]!.frame <= frame) next++;
    expanded.push(stored[next]!);
  }
  const mediaDuration = rate.frames * frameTicks;
  const movieDuration = Math.round((mediaDuration * timescaleOf(mvhd)) / mediaScale);

  stbl.children = [
    required(stbl.children?.find((box) => box.type === "stsd"), "stsd"),
    fullBox("stts", 0, uint32s([1, rate.frames, frameTicks])),
    fullBox("stsc", 0, uint32s([1, 1, 1, 1])),
    fullBox("stsz", 0, uint32s([0, expanded.length, ...expanded.map((s) => s.size)])),
    chunkOffsets(expanded.map((s) => s.offset)),
  ];
  setDuration(mdhd, mediaDuration, { v0: 16, v1: 24 });
  setDuration(mvhd, movieDuration, { v0: 16, v1: 24 });
  setDuration(required(findBox([trak], "trak", "tkhd"), "tkhd"), movieDuration, { v0: 20, v1: 28 });
  const edts = trak.children?.find((box) => box.type === "edts");
  if (edts) edts.children = [fullBox("elst", 0, uint32s([1, movieDuration, 0, 0x10000]))];
  return moov;
}

/** Every sample of the track, in order, with its place in the file and its start time. */
export function readSamples(stbl: Box): Sample[] {
  const table = (type: string) => required(stbl.children?.find((box) => box.type === type), type).body;
  const stts = table("stts");
  const times: number[] = [];
  let time = 0;
  for (let i = 0, entries = stts.readUInt32BE(4); i < entries; i++) {
    const count = stts.readUInt32BE(8 + i * 8);
    const delta = stts.readUInt32BE(12 + i * 8);
    for (let k = 0; k < count; k++, time += delta) times.push(time);
  }
  const stsz = table("stsz");
  const fixedSize = stsz.readUInt32BE(4);
  const sizes = Array.from({ length: stsz.readUInt32BE(8) }, (_, i) => (fixedSize !== 0 ? fixedSize : stsz.readUInt32BE(12 + i * 4)));
  const co64 = stbl.children?.find((box) => box.type === "co64");
  const stco = co64 ?? required(stbl.children?.find((box) => box.type === "stco"), "stco");
  const chunkCount = stco.body.readUInt32BE(4);
  const chunkOffset = (i: number) => (co64 ? Number(stco.body.readBigUInt64BE(8 + i * 8)) : stco.body.readUInt32BE(8 + i * 4));
  const stsc = table("stsc");
  const runs = Array.from({ length: stsc.readUInt32BE(4) }, (_, i) => ({
    firstChunk: stsc.readUInt32BE(8 + i * 12),
    perChunk: stsc.readUInt32BE(12 + i * 12),
  }));
  const samples: Sample[] = [];
  for (let chunk = 0, run = 0; chunk < chunkCount; chunk++) {
    while (run + 1 < runs.length && runs[run + 1]!.firstChunk <= chunk + 1) run++;
    let offset = chunkOffset(chunk);
    for (let k = 0; k < (runs[run]?.perChunk ?? 0) && samples.length < sizes.length; k++) {
      const size = sizes[samples.length]!;
      samples.push({ offset, size, time: times[samples.length] ?? time });
      offset += size;
    }
  }
  if (samples.length === 0 || samples.length !== sizes.length) throw new Error(`the track's tables hold ${sizes.length} samples, ${samples.length} placed`);
  return samples;
}

function chunkOffsets(offsets: readonly number[]): Box {
  if (offsets.every((offset) => offset < 2 ** 32)) return fullBox("stco", 0, uint32s([offsets.length, ...offsets]));
  const body = Buffer.alloc(4 + 8 * offsets.length);
  body.writeUInt32BE(offsets.length, 0);
  offsets.forEach((offset, i) => body.writeBigUInt64BE(BigInt(offset), 4 + i * 8));
  return fullBox("co64", 0, body);
}

function uint32s(values: readonly number[]): Buffer {
  const bytes = Buffer.alloc(4 * values.length);
  values.forEach((value, i) => bytes.writeUInt32BE(value, 4 * i));
  return bytes;
}

/** The timescale of a movie or media header (after version, flags and two timestamps of the version's width). */
function timescaleOf(header: Box): number {
  return header.body.readUInt32BE(header.body[0] === 1 ? 20 : 12);
}

function setDuration(header: Box, duration: number, at: { v0: number; v1: number }): void {
  if (header.body[0] === 1) header.body.writeBigUInt64BE(BigInt(duration), at.v1);
  else header.body.writeUInt32BE(duration, at.v0);
}

export function required<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`the movie has no ${what} box`);
  return value;
}
