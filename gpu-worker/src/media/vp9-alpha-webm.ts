import { readFile, rm, writeFile } from "node:fs/promises";
import { ebmlHeader, element, idBytes, int, master, MATROSKA_ID as ID, segmentInfo, text, uint, UNKNOWN_SIZE } from "./ebml.ts";
import { runFfmpeg } from "./ffmpeg.ts";
import { readIvf, type IvfFile } from "./ivf.ts";

// A WebM with alpha made of two VP9 streams encoded apart: the colour planes, a frame wherever the picture
// changes, and the alpha plane (as the luma of a 4:2:0 picture, what libvpx's alpha encoder is given), a frame
// only where the alpha changes and at each of the colour's key frames, which are its own key frames (both
// encoders choose them by one rule: render/alpha-track.ts). Each colour frame carries its alpha as a Matroska
// BlockAdditional (ID 1), as ffmpeg's libvpx encoder writes it and Chromium reads it; a colour frame whose alpha
// did not change carries a one-byte VP9 frame that shows the alpha decoder's last frame again
// (show_existing_frame). Captions whose colours change every frame (a karaoke fill) keep their shapes for a
// whole word: their alpha is encoded once a word instead of once a frame, and libvpx's cost is the frame's area.

const TRACK_NUMBER = 1;
// Block times are signed 16-bit offsets from their Cluster's time.
const MAX_BLOCK_OFFSET_MS = 32_767;
/**
 * A VP9 frame of profile 0 that shows reference slot 0 again, decoding nothing: frame marker 0b10, profile 0,
 * show_existing_frame 1, frame_to_show_map_idx 0. libvpx's encoder refreshes slot 0 (its last frame) with every
 * frame it shows when it codes no hidden frames (real time, no alternate reference: render/overlay-output.ts), and a key
 * frame all slots: slot 0 is the alpha stream's last frame.
 */
export const SHOW_LAST_VP9_FRAME = Buffer.from([0x88]);

/** A VP9 frame's first byte: a key frame shows no existing frame and has frame_type 0 (profiles 0 to 2). */
export const isVp9KeyFrame = (frame: Buffer): boolean => frame.length > 0 && (frame[0]! & 0xc0) === 0x80 && (frame[0]! & 0x0c) === 0;

/**
 * Colour frames, each with its alpha frame: the alpha frame of its very time, else the last one shown again. A
 * player seeking starts decoding at a colour key frame: the alpha frame beside it must be a key frame too, and
 * an alpha key frame is only where the colour has one (else the colour frames after it would refer to alpha
 * frames before it that a seek there never decoded).
 */
export function pairAlpha(colour: IvfFile, alpha: IvfFile): { pts: number; colour: Buffer; alpha: Buffer }[] {
  if (colour.fourcc !== "VP90" || alpha.fourcc !== "VP90") throw new Error(`expected VP9 streams, got ${colour.fourcc} and ${alpha.fourcc}`);
  if (colour.timeBase.num !== alpha.timeBase.num || colour.timeBase.den !== alpha.timeBase.den) throw new Error("colour and alpha differ in time base");
  let next = 0;
  const paired = colour.frames.map((frame) => {
    const key = isVp9KeyFrame(frame.data);
    const own = alpha.frames[next];
    if (own !== undefined && own.pts === frame.pts) {
      next++;
      if (isVp9KeyFrame(own.data) !== key) throw new Error(`at ${frame.pts} the colour frame is ${key ? "" : "not "}a key frame and the alpha frame ${key ? "not" : "is"}`);
      return { pts: frame.pts, colour: frame.data, alpha: own.data };
    }
    if (key || (own !== undefined && own.pts < frame.pts)) throw new Error(`no alpha frame for the colour frame at ${frame.pts}`);
    return { pts: frame.pts, colour: frame.data, alpha: SHOW_LAST_VP9_FRAME };
  });
  if (next < alpha.frames.length) throw new Error(`the alpha frame at ${alpha.frames[next]!.pts} has no colour frame`);
  return paired;
}

function header(width: number, height: number): Buffer {
  const track = master(ID.TrackEntry, uint(ID.TrackNumber, TRACK_NUMBER), uint(ID.TrackUID, 1), uint(ID.TrackType, 1), uint(ID.FlagLacing, 0),
    uint(ID.MaxBlockAdditionID, 1), text(ID.CodecID, "V_VP9"), master(ID.Video, uint(ID.PixelWidth, width), uint(ID.PixelHeight, height), uint(ID.AlphaMode, 1)));
  return Buffer.concat([ebmlHeader("webm"), idBytes(ID.Segment), UNKNOWN_SIZE, segmentInfo(), master(ID.Tracks, track)]);
}

/**
 * The Matroska bytes of the paired streams, a chunk at a time (a video's worth is not held twice): a Cluster at
 * each key frame (and every 32 s), a BlockGroup a frame.
 */
export function* alphaMatroska(colour: IvfFile, alpha: IvfFile): Generator<Buffer> {
  const msPerTick = (1000 * colour.timeBase.num) / colour.timeBase.den;
  const paired = pairAlpha(colour, alpha);
  yield header(colour.width, colour.height);
  let clusterMs: number | null = null;
  let previousMs = 0;
  for (const frame of paired) {
    const ms = Math.round(frame.pts * msPerTick);
    const key = isVp9KeyFrame(frame.colour);
    if (clusterMs === null || key || ms - clusterMs > MAX_BLOCK_OFFSET_MS) {
      clusterMs = ms;
      yield Buffer.concat([idBytes(ID.Cluster), UNKNOWN_SIZE, uint(ID.Timestamp, ms)]);
    }
    const blockHeader = Buffer.alloc(4);
    blockHeader[0] = 0x80 | TRACK_NUMBER;
    blockHeader.writeInt16BE(ms - clusterMs, 1);
    const more = master(ID.BlockMore, uint(ID.BlockAddID, 1), element(ID.BlockAdditional, frame.alpha));
    // A block without a ReferenceBlock is a key frame to Matroska; the others name the frame before.
    const reference = key ? [] : [int(ID.ReferenceBlock, previousMs - ms)];
    yield master(ID.BlockGroup, element(ID.Block, Buffer.concat([blockHeader, frame.colour])), ...reference, master(ID.BlockAdditions, more));
    previousMs = ms;
  }
}

/**
 * Writes `webmPath` from the colour and alpha IVF files (the caller's to remove): muxed here, then copied through ffmpeg's
 * WebM muxer for what players seek with (duration, cues), the alpha carried as it is. Answers how many frames
 * each stream has.
 */
export async function writeAlphaWebm(
  paths: { colour: string; alpha: string; webm: string },
  options: { ffmpegBinary?: string; signal?: AbortSignal },
): Promise<{ colourFrames: number; alphaFrames: number }> {
  const muxed = `${paths.webm}.mkv`;
  try {
    const [colour, alpha] = (await Promise.all([readFile(paths.colour), readFile(paths.alpha)])).map(readIvf) as [IvfFile, IvfFile];
    await writeFile(muxed, alphaMatroska(colour, alpha));
    await runFfmpeg({ binary: options.ffmpegBinary, signal: options.signal, args: ["-hide_banner", "-loglevel", "error", "-y", "-i", muxed, "-c", "copy", "-f", "webm", paths.webm] });
    return { colourFrames: colour.frames.length, alphaFrames: alpha.frames.length };
  } finally {
    await rm(muxed, { force: true });
  }
}
