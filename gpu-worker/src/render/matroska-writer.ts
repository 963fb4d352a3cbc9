/**
 * A minimal streaming Matroska writer for one uncompressed yuva420p video track with millisecond timestamps,
 * so frames can carry their own times and be sent only when the picture changes.
 * Segment and Clusters have unknown size: nothing is ever rewritten, so it works on a pipe.
 */

const ID = {
  EBML: 0x1a45dfa3,
  EBMLVersion: 0x4286,
  EBMLReadVersion: 0x42f7,
  EBMLMaxIDLength: 0x42f2,
  EBMLMaxSizeLength: 0x42f3,
  DocType: 0x4282,
  DocTypeVersion: 0x4287,
  DocTypeReadVersion: 0x4285,
  Segment: 0x18538067,
  Info: 0x1549a966,
  TimestampScale: 0x2ad7b1,
  MuxingApp: 0x4d80,
  WritingApp: 0x5741,
  Tracks: 0x1654ae6b,
  TrackEntry: 0xae,
  TrackNumber: 0xd7,
  TrackUID: 0x73c5,
  TrackType: 0x83,
  FlagLacing: 0x9c,
  CodecID: 0x86,
  Video: 0xe0,
  PixelWidth: 0xb0,
  PixelHeight: 0xba,
  ColourSpace: 0x2eb524,
  AlphaMode: 0x53c0,
  Cluster: 0x1f43b675,
  Timestamp: 0xe7,
  SimpleBlock: 0xa3,
} as const;

// EBML "unknown size": a one-byte-long size with all value bits set would limit elements to 127 bytes.
const UNKNOWN_SIZE = Buffer.from([0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]);
const TRACK_NUMBER = 1;
// SimpleBlock times are signed 16-bit offsets from their Cluster's time.
const MAX_BLOCK_OFFSET_MS = 32_767;
const KEYFRAME_FLAG = 0x80;
const YUVA420P_FOURCC = Buffer.from([0x59, 0x34, 11, 8]);

/** Bytes of one yuva420p frame. */
export function yuva420pFrameBytes(track: MatroskaVideoTrack): number {
  return 2 * track.width * track.height + 2 * Math.ceil(track.width / 2) * Math.ceil(track.height / 2);
}

function idBytes(id: number): Buffer {
  const length = id > 0xffffff ? 4 : id > 0xffff ? 3 : id > 0xff ? 2 : 1;
  const bytes = Buffer.alloc(length);
  bytes.writeUIntBE(id, 0, length);
  return bytes;
}

/** EBML variable-length size: the shortest form whose all-ones value is still free for "unknown". */
export function encodeSize(size: number): Buffer {
  if (!Number.isSafeInteger(size) || size < 0) throw new RangeError(`Invalid EBML size ${size}`);
  let length = 1;
  while (size >= 2 ** (7 * length) - 1) length++;
  if (length > 8) throw new RangeError(`EBML size ${size} too large`);
  const bytes = Buffer.alloc(length);
  let rest = size;
  for (let i = length - 1; i >= 0; i--) {
    bytes[i] = rest % 256;
    rest = Math.floor(rest / 256);
  }
  bytes[0] = bytes[0]! | (0x80 >> (length - 1));
  return bytes;
}

function element(id: number, payload: Buffer): Buffer {
  return Buffer.concat([idBytes(id), encodeSize(payload.length), payload]);
}

function uint(id: number, value: number): Buffer {
  let length = 1;
  while (value >= 2 ** (8 * length)) length++;
  const payload = Buffer.alloc(length);
  payload.writeUIntBE(value, 0, length);
  return element(id, payload);
}

function text(id: number, value: string): Buffer {
  return element(id, Buffer.from(value, "utf8"));
}

function master(id: number, ...children: Buffer[]): Buffer {
  return element(id, Buffer.concat(children));
}

export interface MatroskaVideoTrack {
  width: number;
  height: number;
}

/** EBML header, Segment start, Info and Tracks: everything before the first frame. */
export function matroskaHeader(track: MatroskaVideoTrack): Buffer {
  if (!Number.isInteger(track.width) || !Number.isInteger(track.height) || track.width < 1 || track.height < 1) {
    throw new RangeError(`Invalid frame size ${track.width}x${track.height}`);
  }
  const ebml = master(
    ID.EBML,
    uint(ID.EBMLVersion, 1),
    uint(ID.EBMLReadVersion, 1),
    uint(ID.EBMLMaxIDLength, 4),
    uint(ID.EBMLMaxSizeLength, 8),
    text(ID.DocType, "matroska"),
    uint(ID.DocTypeVersion, 4),
    uint(ID.DocTypeReadVersion, 2),
  );
  const info = master(
    ID.Info,
    uint(ID.TimestampScale, 1_000_000),
    text(ID.MuxingApp, "caption-service"),
    text(ID.WritingApp, "caption-service"),
  );
  const tracks = master(
    ID.Tracks,
    master(
      ID.TrackEntry,
      uint(ID.TrackNumber, TRACK_NUMBER),
      uint(ID.TrackUID, 1),
      uint(ID.TrackType, 1),
      uint(ID.FlagLacing, 0),
      text(ID.CodecID, "V_UNCOMPRESSED"),
      master(
        ID.Video,
        uint(ID.PixelWidth, track.width),
        uint(ID.PixelHeight, track.height),
        // ffmpeg's fourcc for yuva420p: planes Y, U, V (half width and height, rounded up), A.
        element(ID.ColourSpace, YUVA420P_FOURCC),
        uint(ID.AlphaMode, 1),
      ),
    ),
  );
  return Buffer.concat([ebml, idBytes(ID.Segment), UNKNOWN_SIZE, info, tracks]);
}

/** Turns frames into Cluster and SimpleBlock bytes; keeps the open Cluster's time between calls. */
export class MatroskaFrameWriter {
  readonly #frameBytes: number;
  #clusterMs: number | null = null;
  #lastMs = -1;

  constructor(track: MatroskaVideoTrack) {
    this.#frameBytes = yuva420pFrameBytes(track);
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
    const blockHeader = Buffer.alloc(4);
    blockHeader[0] = 0x80 | TRACK_NUMBER;
    blockHeader.writeInt16BE(timestampMs - this.#clusterMs, 1);
    blockHeader[3] = KEYFRAME_FLAG;
    chunks.push(
      idBytes(ID.SimpleBlock),
      encodeSize(blockHeader.length + pixels.byteLength),
      blockHeader,
      Buffer.from(pixels.buffer, pixels.byteOffset, pixels.byteLength),
    );
    return chunks;
  }
}
