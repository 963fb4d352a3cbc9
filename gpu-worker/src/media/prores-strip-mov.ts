import { open, rm } from "node:fs/promises";
import { constantRateMoov, readMovieBox, readSamples, required, type ConstantRate } from "./constant-rate-mov.ts";
import { findBox, serializeBox, type Box } from "./mov-boxes.ts";
import { parseProresFrame, spliceProresRows } from "./prores-frames.ts";

// A ProRes movie of the whole frame made from one of a strip of it: only the strip (the rows where anything
// is ever drawn, across the frame's width) is encoded, frame after frame; each of its frames is spliced into
// `base`, one frame of the whole size encoded once (the empty canvas), and the movie made constant-rate
// (constant-rate-mov.ts). Encoding a 1080 × 1920 frame costs the encoder as much whether it is empty or
// not; a caption strip is a seventh of it (1080 × 288 of 1080 × 1920), and costs a fifth.

export interface StripPlacement {
  /** A ProRes frame of the whole size, coded as the strip is, holding what lies around the strip. */
  base: Buffer;
  /** The strip's first row of slices in the frame. */
  firstRow: number;
}

/**
 * Writes `targetPath`: the strip movie at `stripPath` (sample data first, movie box last, its samples on the
 * frame grid) with every frame spliced into `placement.base`, one sample per frame of `rate`. The strip
 * movie is removed; so is a movie left unfinished (an abort between frames, a strip that does not fit).
 */
export async function writeStripMovAsFrames(
  stripPath: string,
  targetPath: string,
  placement: StripPlacement,
  rate: ConstantRate,
  signal?: AbortSignal,
): Promise<void> {
  const base = parseProresFrame(placement.base);
  const strip = await open(stripPath, "r");
  const out = await open(targetPath, "w");
  let written = false;
  try {
    const movie = await readMovieBox(strip, stripPath);
    const samples = readSamples(required(findBox([movie.moov], "moov", "trak", "mdia", "minf", "stbl"), "stbl"));
    let position = 0;
    const append = async (bytes: Buffer) => {
      await out.write(bytes, 0, bytes.length, position);
      position += bytes.length;
    };
    // The file type box and whatever else came before the strip's sample data, as the muxer wrote them.
    for (const box of movie.before.filter((b) => b.type !== "mdat" && b.type !== "wide")) await append(await readExtent(strip, box));
    // 16 bytes for the media data header: a 'wide' box and a 32-bit 'mdat' header, or one 64-bit header.
    const mdatAt = position;
    await append(Buffer.alloc(16));
    const moved: { offset: number; size: number }[] = [];
    for (const sample of samples) {
      signal?.throwIfAborted();
      const frame = spliceProresRows(base, parseProresFrame(await readExtent(strip, sample)), placement.firstRow);
      moved.push({ offset: position, size: frame.length });
      await append(frame);
    }
    await out.write(mediaDataHeader(position - mdatAt), 0, 16, mdatAt);
    const moov = constantRateMoov(movie.moov, rate, moved);
    setPictureSize(moov, base.width, base.height);
    await append(serializeBox(moov));
    written = true;
  } finally {
    await Promise.all([strip.close(), out.close()]);
    if (!written) await rm(targetPath, { force: true });
  }
  await rm(stripPath, { force: true });
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

/** The track's picture size: its header's (16.16 fixed point, last in the box) and its sample description's. */
function setPictureSize(moov: Box, width: number, height: number): void {
  const tkhd = required(findBox([moov], "moov", "trak", "tkhd"), "tkhd");
  tkhd.body.writeUInt32BE(width * 0x10000, tkhd.body.length - 8);
  tkhd.body.writeUInt32BE(height * 0x10000, tkhd.body.length - 4);
  const stsd = required(findBox([moov], "moov", "trak", "mdia", "minf", "stbl", "stsd"), "stsd");
  if (stsd.body.readUInt32BE(4) !== 1) throw new Error("expected one sample description");
  // Version and flags, the entry count, then the visual sample entry: width and height 32 bytes into it.
  stsd.body.writeUInt16BE(width, 8 + 32);
  stsd.body.writeUInt16BE(height, 8 + 34);
}
