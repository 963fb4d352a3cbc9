/**
 * A minimal streaming Matroska writer for one uncompressed yuva420p video track with millisecond timestamps,
 * so frames can carry their own times and be sent only when the picture changes; and, for the overlay WebM,
 * a second track of 8-bit alpha planes sent only where the alpha changes (or a key frame is due); and a track of
 * marks (2 x 2 gray frames) saying which composited frames the render takes for the poster and the strip.
 * Segment and Clusters have unknown size: nothing is ever rewritten, so it works on a pipe.
 */
import { ebmlHeader, element, encodeSize, idBytes, master, MATROSKA_ID as ID, segmentInfo, text, uint, UNKNOWN_SIZE } from "../media/ebml.ts";

const TRACK_NUMBER = 1;
const ALPHA_TRACK_NUMBER = 2;
const MARK_TRACK_NUMBER = 3;
/** A mark's frame is this many pixels a side: ffmpeg reads its brightness (render/picture-track.ts). */
export const MARK_SIZE = 2;
const MARK_TAKE = Buffer.alloc(MARK_SIZE * MARK_SIZE, 255);
const MARK_PASS = Buffer.alloc(MARK_SIZE * MARK_SIZE, 0);
// SimpleBlock times are signed 16-bit offsets from their Cluster's time.
const MAX_BLOCK_OFFSET_MS = 32_767;
const KEYFRAME_FLAG = 0x80;
const YUVA420P_FOURCC = Buffer.from([0x59, 0x34, 11, 8]);
// ffmpeg's fourcc for gray (8-bit, one plane).
const GRAY8_FOURCC = Buffer.from("Y800", "latin1");

/** Bytes of one yuva420p frame. */
export function yuva420pFrameBytes(track: MatroskaVideoTrack): number {
  return 2 * track.width * track.height + 2 * Math.ceil(track.width / 2) * Math.ceil(track.height / 2);
}

export interface MatroskaVideoTrack {
  width: number;
  height: number;
}

/** EBML header, Segment start, Info and Tracks: everything before the first frame. */
export function matroskaHeader(track: MatroskaVideoTrack, options: { alphaTrack?: boolean; markTrack?: boolean } = {}): Buffer {
  if (!Number.isInteger(track.width) || !Number.isInteger(track.height) || track.width < 1 || track.height < 1) {
    throw new RangeError(`Invalid frame size ${track.width}x${track.height}`);
  }
  const videoTrack = (number: number, fourcc: Buffer, alphaMode: number[], size: MatroskaVideoTrack = track) =>
    master(
      ID.TrackEntry,
      uint(ID.TrackNumber, number),
      uint(ID.TrackUID, number),
      uint(ID.TrackType, 1),
      uint(ID.FlagLacing, 0),
      text(ID.CodecID, "V_UNCOMPRESSED"),
      master(
        ID.Video,
        uint(ID.PixelWidth, size.width),
        uint(ID.PixelHeight, size.height),
        element(ID.ColourSpace, fourcc),
        ...alphaMode.map((mode) => uint(ID.AlphaMode, mode)),
      ),
    );
  // yuva420p: planes Y, U, V (half width and height, rounded up), A.
  const alpha = options.alphaTrack ? [videoTrack(ALPHA_TRACK_NUMBER, GRAY8_FOURCC, [])] : [];
  const marks = options.markTrack ? [videoTrack(MARK_TRACK_NUMBER, GRAY8_FOURCC, [], { width: MARK_SIZE, height: MARK_SIZE })] : [];
  const tracks = master(ID.Tracks, videoTrack(TRACK_NUMBER, YUVA420P_FOURCC, [1]), ...alpha, ...marks);
  return Buffer.concat([ebmlHeader(), idBytes(ID.Segment), UNKNOWN_SIZE, segmentInfo(), tracks]);
}

/**
 * Turns frames into Cluster and SimpleBlock bytes; keeps the open Cluster's time between calls. Times increase
 * within each track; marks run ahead of the frames, so a block may lie before its Cluster's time.
 */
export class MatroskaFrameWriter {
  readonly #frameBytes: number;
  readonly #alphaBytes: number;
  #clusterMs: number | null = null;
  #lastMs = -1;
  #lastMarkMs = -1;

  constructor(track: MatroskaVideoTrack) {
    this.#frameBytes = yuva420pFrameBytes(track);
    this.#alphaBytes = track.width * track.height;
  }

  /**
   * The chunks to write for one frame shown from `timestampMs` (whole, strictly increasing milliseconds).
   * The pixels are passed through, not copied.
   */
  frame(timestampMs: number, pixels: Uint8Array): Buffer[] {
    if (!Number.isInteger(timestampMs) || timestampMs <= this.#lastMs) {
      throw new RangeError(`Frame time ${timestampMs} ms is not a whole number after ${this.#lastMs} ms`);
    }
    if (pixels.byteLength !== this.#frameBytes) {
      throw new RangeError(`Frame has ${pixels.byteLength} bytes, expected ${this.#frameBytes}`);
    }
    this.#lastMs = timestampMs;
    return this.#block(TRACK_NUMBER, timestampMs, pixels);
  }

  /**
   * A mark at `timestampMs` (whole milliseconds): take the composited frame on screen then, or (`take` false)
   * only say that nothing before it will be taken. A mark of the latter kind at or before the last mark is
   * left out (it says nothing new); a take must come after it.
   */
  mark(timestampMs: number, take: boolean): Buffer[] {
    if (!Number.isInteger(timestampMs) || timestampMs < 0) throw new RangeError(`Mark time ${timestampMs} ms is not a whole number`);
    if (timestampMs <= this.#lastMarkMs) {
      if (take) throw new RangeError(`Take at ${timestampMs} ms is not after the mark at ${this.#lastMarkMs} ms`);
      return [];
    }
    this.#lastMarkMs = timestampMs;
    return this.#block(MARK_TRACK_NUMBER, timestampMs, take ? MARK_TAKE : MARK_PASS);
  }

  /**
   * The chunks for the alpha track's plane (width × height bytes) of the frame just written, at its time: only
   * in a stream whose header has the alpha track.
   */
  alpha(plane: Uint8Array): Buffer[] {
    if (this.#lastMs < 0) throw new RangeError("An alpha plane needs its frame written first");
    if (plane.byteLength !== this.#alphaBytes) throw new RangeError(`Alpha plane has ${plane.byteLength} bytes, expected ${this.#alphaBytes}`);
    return this.#block(ALPHA_TRACK_NUMBER, this.#lastMs, plane);
  }

  #block(track: number, timestampMs: number, pixels: Uint8Array): Buffer[] {
    const chunks: Buffer[] = [];
    const offset = timestampMs - (this.#clusterMs ?? Number.NaN);
    if (!(Math.abs(offset) <= MAX_BLOCK_OFFSET_MS)) {
      this.#clusterMs = timestampMs;
      chunks.push(idBytes(ID.Cluster), UNKNOWN_SIZE, uint(ID.Timestamp, timestampMs));
    }
    const blockHeader = Buffer.alloc(4);
    blockHeader[0] = 0x80 | track;
    blockHeader.writeInt16BE(timestampMs - this.#clusterMs!, 1);
    blockHeader[3] = KEYFRAME_FLAG;
    const bytes = Buffer.from(pixels.buffer, pixels.byteOffset, pixels.byteLength);
    return [...chunks, idBytes(ID.SimpleBlock), encodeSize(blockHeader.length + pixels.byteLength), blockHeader, bytes];
  }
}
