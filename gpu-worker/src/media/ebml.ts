// EBML, the element syntax of Matroska: what the caption stream's writer (render/matroska-writer.ts) builds its
// stream from. (The overlay WebM is written by mediabunny: media/vp9-alpha-webm.ts.)

/** EBML "unknown size": a one-byte-long size with all value bits set would limit elements to 127 bytes. */
export const UNKNOWN_SIZE = Buffer.from([0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]);

export function idBytes(id: number): Buffer {
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

export function element(id: number, payload: Buffer): Buffer {
  return Buffer.concat([idBytes(id), encodeSize(payload.length), payload]);
}

export function uint(id: number, value: number): Buffer {
  let length = 1;
  while (value >= 2 ** (8 * length)) length++;
  const payload = Buffer.alloc(length);
  payload.writeUIntBE(value, 0, length);
  return element(id, payload);
}

export function text(id: number, value: string): Buffer {
  return element(id, Buffer.from(value, "utf8"));
}

export function master(id: number, ...children: Buffer[]): Buffer {
  return element(id, Buffer.concat(children));
}

/** Matroska (WebM) element IDs, as the specification numbers them. */
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
  AlphaMode: 0x53c0,
  Cluster: 0x1f43b675,
  Timestamp: 0xe7,
  ColourSpace: 0x2eb524,
  SimpleBlock: 0xa3,
} as const;

export { ID as MATROSKA_ID };

/** The EBML header of a Matroska file. */
export const ebmlHeader = (): Buffer =>
  master(ID.EBML, uint(ID.EBMLVersion, 1), uint(ID.EBMLReadVersion, 1), uint(ID.EBMLMaxIDLength, 4), uint(ID.EBMLMaxSizeLength, 8),
    text(ID.DocType, "matroska"), uint(ID.DocTypeVersion, 4), uint(ID.DocTypeReadVersion, 2));

/** The Segment's Info: times in milliseconds, written by this service. */
export const segmentInfo = (): Buffer =>
  master(ID.Info, uint(ID.TimestampScale, 1_000_000), text(ID.MuxingApp, "caption-service"), text(ID.WritingApp, "caption-service"));
