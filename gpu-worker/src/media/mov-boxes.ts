import type { FileHandle } from "node:fs/promises";

// QuickTime/ISO BMFF boxes, as much of them as rewriting a movie's sample tables needs: the file's
// top-level boxes found by their headers, and the movie box (`moov`) read as a tree of boxes.

export interface Box {
  type: string;
  /** What follows the header; for a container, its children as they were read (re-serialised from `children`). */
  body: Buffer;
  children?: Box[];
}

/** Boxes whose body is a list of boxes, on the path to a track's sample tables. */
const CONTAINERS = new Set(["moov", "trak", "mdia", "minf", "stbl", "edts", "dinf"]);

/** A top-level box of a file: where it starts and how long it is, header included. */
export interface BoxExtent {
  type: string;
  offset: number;
  size: number;
}

/** The file's top-level boxes, found from their headers alone (a media data box of gigabytes is never read). */
export async function topLevelBoxes(file: FileHandle): Promise<BoxExtent[]> {
  const { size: fileSize } = await file.stat();
  const boxes: BoxExtent[] = [];
  const header = Buffer.alloc(16);
  for (let offset = 0; offset < fileSize; ) {
    const { bytesRead } = await file.read(header, 0, 16, offset);
    if (bytesRead < 8) throw new Error(`truncated box header at ${offset}`);
    let size = header.readUInt32BE(0);
    if (size === 1) {
      if (bytesRead < 16) throw new Error(`truncated box header at ${offset}`);
      size = Number(header.readBigUInt64BE(8));
    } else if (size === 0) size = fileSize - offset;
    if (size < 8 || offset + size > fileSize) throw new Error(`box at ${offset} claims ${size} bytes`);
    boxes.push({ type: header.toString("latin1", 4, 8), offset, size });
    offset += size;
  }
  return boxes;
}

/** Parses `bytes` as a list of boxes, descending into the containers on the way to sample tables. */
export function parseBoxes(bytes: Buffer): Box[] {
  const boxes: Box[] = [];
  for (let offset = 0; offset < bytes.length; ) {
    if (offset + 8 > bytes.length) throw new Error(`truncated box at ${offset}`);
    let size = bytes.readUInt32BE(offset);
    let headerSize = 8;
    if (size === 1) {
      size = Number(bytes.readBigUInt64BE(offset + 8));
      headerSize = 16;
    } else if (size === 0) size = bytes.length - offset;
    if (size < headerSize || offset + size > bytes.length) throw new Error(`box at ${offset} claims ${size} bytes`);
    const type = bytes.toString("latin1", offset + 4, offset + 8);
    const body = bytes.subarray(offset + headerSize, offset + size);
    boxes.push(CONTAINERS.has(type) ? { type, body, children: parseBoxes(body) } : { type, body });
    offset += size;
  }
  return boxes;
}

/** The box's bytes, header included; a container's from its children. */
export function serializeBox(box: Box): Buffer {
  const body = box.children ? Buffer.concat(box.children.map(serializeBox)) : box.body;
  const header = Buffer.alloc(8);
  header.writeUInt32BE(8 + body.length, 0);
  header.write(box.type, 4, "latin1");
  return Buffer.concat([header, body]);
}

/** The first box of `type` along `path` (types, outermost first) below `boxes`. */
export function findBox(boxes: readonly Box[], ...path: string[]): Box | undefined {
  let found: Box | undefined;
  let level: readonly Box[] | undefined = boxes;
  for (const type of path) {
    found = level?.find((box) => box.type === type);
    level = found?.children;
  }
  return found;
}

/** A full box (version, flags) of `type` with `payload` after them. */
export function fullBox(type: string, version: number, payload: Buffer): Box {
  const head = Buffer.alloc(4);
  head.writeUInt8(version, 0);
  return { type, body: Buffer.concat([head, payload]) };
}
