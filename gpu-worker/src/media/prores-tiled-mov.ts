import { open, rm } from "node:fs/promises";
import { constantRateMoov, readMovieBox, readSamples, required, type ConstantRate, type StoredSample } from "./constant-rate-mov.ts";
import { findBox, serializeBox } from "./mov-boxes.ts";
import { parseProresFrame, proresFrameParts, type TileColumn } from "./prores-frames.ts";
import { readProresFrames } from "./prores-tile-encoder.ts";

// The overlay's ProRes movie put together from tiles coded apart (media/prores-frames.ts): a frame of the
// whole size holding the empty canvas is coded once (the template, a one-frame movie of the MOV's settings);
// each picture change replaces the slices of the tiles that changed, and the movie is made constant-rate
// (constant-rate-mov.ts). A caption changes a few tiles of the frame's hundreds at a time: a karaoke fill
// sweeping a word, 5 tiles of 162 on a 1080 × 1920 frame.

/** Tiles that changed at a frame of the video, in the order their pictures went to the encoders. */
export interface MovFrameChange {
  frame: number;
  tiles: readonly { row: number; column: number }[];
}

export interface TiledMovSource {
  /** A one-frame movie of the whole size holding the empty canvas, coded as the tiles are. */
  templatePath: string;
  columns: readonly TileColumn[];
  /** Each tile width's encoder output (readProresFrames), a frame per tile of that width in the order of `changes`. */
  tileFiles: ReadonlyMap<number, string>;
  changes: readonly MovFrameChange[];
}

/**
 * Writes `targetPath`: one sample per frame of `rate`, the frames from the first change on each showing the
 * picture of the last change at or before it. A movie left unfinished (an abort, a tile that does not fit) is removed.
 */
export async function writeTiledMov(source: TiledMovSource, targetPath: string, rate: ConstantRate, signal?: AbortSignal): Promise<void> {
  const template = await open(source.templatePath, "r");
  const out = await open(targetPath, "w");
  const readers = new Map([...source.tileFiles].map(([width, path]) => [width, readProresFrames(path)[Symbol.asyncIterator]()]));
  let written = false;
  try {
    const movie = await readMovieBox(template, source.templatePath);
    const [first] = readSamples(required(findBox([movie.moov], "moov", "trak", "mdia", "minf", "stbl"), "stbl"));
    const base = parseProresFrame(await readExtent(template, first!));
    const slicesPerRow = source.columns.reduce((sum, column) => sum + column.slices, 0);
    if (slicesPerRow !== base.slicesPerRow) throw new Error(`tiles of ${slicesPerRow} slices a row for a frame of ${base.slicesPerRow}`);
    const slices = [...base.slices];
    let position = 0;
    const append = async (...parts: Buffer[]) => {
      await out.writev(parts, position);
      position += parts.reduce((sum, part) => sum + part.length, 0);
    };
    for (const box of movie.before.filter((b) => b.type !== "mdat" && b.type !== "wide")) await append(await readExtent(template, box));
    // 16 bytes for the media data header: a 'wide' box and a 32-bit 'mdat' header, or one 64-bit header.
    const mdatAt = position;
    await append(Buffer.alloc(16));
    const stored: StoredSample[] = [];
    if (source.changes[0]?.frame !== 0) {
      const at = position;
      await append(...proresFrameParts(base, slices));
      stored.push({ offset: at, size: position - at, frame: 0 });
    }
    for (const change of source.changes) {
      signal?.throwIfAborted();
      if (change.frame >= rate.frames) break;
      for (const tile of change.tiles) {
        const column = source.columns[tile.column];
        const next = column && (await readers.get(column.width)?.next());
        if (!column || !next || next.done) throw new Error(`no coded tile for row ${tile.row}, column ${tile.column}`);
        const coded = parseProresFrame(next.value).slices;
        if (coded.length !== column.slices) throw new Error(`a tile of ${coded.length} slices for a column of ${column.slices}`);
        const at = tile.row * slicesPerRow + column.firstSlice;
        if (at + coded.length > slices.length) throw new Error(`tile row ${tile.row} outside the frame`);
        slices.splice(at, coded.length, ...coded);
      }
      if (stored.length > 0 && change.tiles.length === 0) continue;
      if (stored.at(-1)?.frame === change.frame) stored.pop();
      const at = position;
      await append(...proresFrameParts(base, slices));
      stored.push({ offset: at, size: position - at, frame: change.frame });
    }
    await out.write(mediaDataHeader(position - mdatAt), 0, 16, mdatAt);
    await append(serializeBox(constantRateMoov(movie.moov, rate, stored)));
    written = true;
  } finally {
    await Promise.all([template.close(), out.close(), ...[...readers.values()].map((reader) => reader.return?.(undefined))]);
    if (!written) await rm(targetPath, { force: true });
  }
}

async function readExtent(file: Awaited<ReturnType<typeof open>>, extent: { offset: number; size: number }): Promise<Buffer> {
  const bytes = Buffer.alloc(extent.size);
  const { bytesRead } = await file.read(bytes, 0, extent.size, extent.offset);
  if (bytesRead !== extent.size) throw new Error(`read ${bytesRead} of ${extent.size} bytes at ${extent.offset}`);
  return bytes;
}

/** The media data box's 16-byte header for `size` bytes, header included. */
function mediaDataHeader(size: number): Buffer {
  const header = Buffer.alloc(16);
  if (size - 8 < 2 ** 32) {
    header.writeUInt32BE(8, 0);
    header.write("wide", 4, "latin1");
    header.writeUInt32BE(size - 8, 8);
    header.write("mdat", 12, "latin1");
  } else {
    header.writeUInt32BE(1, 0);
    header.write("mdat", 4, "latin1");
    header.writeBigUInt64BE(BigInt(size), 8);
  }
  return header;
}
