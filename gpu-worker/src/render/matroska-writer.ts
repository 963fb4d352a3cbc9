/**
 * A minimal streaming Matroska writer for one uncompressed yuva420p video track with millisecond timestamps,
 * so frames can carry their own times and be sent only when the picture changes; and, for the overlay WebM,
 * a second track of 8-bit alpha planes sent only where the alpha changes (or a key frame is due).
 * Segment and Clusters have unknown size: nothing is ever rewritten, so it works on a pipe.
 */
import { ebmlHeader, element, encodeSize, idBytes, master, MATROSKA_ID as ID, segmentInfo, text, uint, UNKNOWN_SIZE } from "../media/ebml.ts";

const TRACK_NUMBER = 1;
const ALPHA_TRACK_NUMBER = 2;
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
export function matroskaHeader(track: MatroskaVideoTrack, options: { alphaTrack?: boolean } = {}): Buffer {
  if (!Number.isInteger(track.width) || !Number.isInteger(track.height) || track.width < 1 || track.height < 1) {
    throw new RangeError(`Invalid frame size ${track.width}x${track.height}`);
  }
  const videoTrack = (number: number, fourcc: Buffer, alphaMode: number[]) =>
    master(
      ID.TrackEntry,
      uint(ID.TrackNumber, number),
      uint(ID.TrackUID, number),
      uint(ID.TrackType, 1),
      uint(ID.FlagLacing, 0),
      text(ID.CodecID, "V_UNCOMPRESSED"),
      master(
        ID.Video,
        uint(ID.PixelWidth, track.width),
        uint(ID.PixelHeight, track.height),
        element(ID.ColourSpace, fourcc),
        ...alphaMode.map((mode) => uint(ID.AlphaMode, mode)),
      ),
    );
  // yuva420p: planes Y, U, V (half width and height, rounded up), A.
  const alpha = options.alphaTrack ? [videoTrack(ALPHA_TRACK_NUMBER, GRAY8_FOURCC, [])] : [];
  const tracks = master(ID.Tracks, videoTrack(TRACK_NUMBER, YUVA420P_FOURCC, [1]), ...alpha);
  return Buffer.concat([ebmlHeader(), idBytes(ID.Segment), UNKNOWN_SIZE, segmentInfo(), tracks]);
}

/** Turns frames into Cluster and SimpleBlock bytes; keeps the open Cluster's time between calls. */
export class MatroskaFrameWriter {
  readonly #frameBytes: number;
  readonly #alphaBytes: number;
  #clusterMs: number | null = null;
  #lastMs = -1;

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
    const chunks: Buffer[] = [];
    if (this.#clusterMs === null || timestampMs - this.#clusterMs > MAX_BLOCK_OFFSET_MS) {
      this.#clusterMs = timestampMs;
      chunks.push(idBytes(ID.Cluster), UNKNOWN_SIZE, uint(ID.Timestamp, timestampMs));
    }
    return [...chunks, ...this.#block(TRACK_NUMBER, pixels)];
  }

  /**
   * The chunks for the alpha track's plane (width × height bytes) of the frame just written, at its time: only
   * in a stream whose header has the alpha track.
   */
  alpha(plane: Uint8Array): Buffer[] {
    if (this.#clusterMs === null) throw new RangeError("An alpha plane needs its frame written first");
    if (plane.byteLength !== this.#alphaBytes) throw new RangeError(`Alpha plane has ${plane.byteLength} bytes, expected ${this.#alphaBytes}`);
    return this.#block(ALPHA_TRACK_NUMBER, plane);
  }

  #block(track: number, pixels: Uint8Array): Buffer[] {
    const blockHeader = Buffer.alloc(4);
    blockHeader[0] = 0x80 | track;
    blockHeader.writeInt16BE(this.#lastMs - this.#clusterMs!, 1);
    blockHeader[3] = KEYFRAME_FLAG;
    const bytes = Buffer.from(pixels.buffer, pixels.byteOffset, pixels.byteLength);
    return [idBytes(ID.SimpleBlock), encodeSize(blockHeader.length + pixels.byteLength), blockHeader, bytes];
  }
}
