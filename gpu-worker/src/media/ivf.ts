import { open, type FileHandle } from "node:fs/promises";

// IVF, the bare container ffmpeg writes VP8/VP9 frames to: a 32-byte file header, then each frame as a 12-byte
// header (its size, its time in the file's time base) and its bytes.

export interface IvfFrame {
  /** The frame's time in the file's time base. */
  pts: number;
  data: Buffer;
}

export interface IvfFile {
  fourcc: string;
  width: number;
  height: number;
  timeBase: { num: number; den: number };
  frames: IvfFrame[];
}

const FILE_HEADER = 32;
const FRAME_HEADER = 12;

export function readIvf(bytes: Buffer): IvfFile {
  if (bytes.length < FILE_HEADER || bytes.toString("latin1", 0, 4) !== "DKIF") throw new Error("not an IVF file");
  const headerSize = bytes.readUInt16LE(6);
  const file: IvfFile = {
    fourcc: bytes.toString("latin1", 8, 12),
    width: bytes.readUInt16LE(12),
    height: bytes.readUInt16LE(14),
    timeBase: { den: bytes.readUInt32LE(16), num: bytes.readUInt32LE(20) },
    frames: [],
  };
  let at = Math.max(FILE_HEADER, headerSize);
  while (at + FRAME_HEADER <= bytes.length) {
    const size = bytes.readUInt32LE(at);
    const pts = Number(bytes.readBigInt64LE(at + 4));
    const end = at + FRAME_HEADER + size;
    if (end > bytes.length) throw new Error(`IVF frame at byte ${at} runs past the end of the file`);
    file.frames.push({ pts, data: bytes.subarray(at + FRAME_HEADER, end) });
    at = end;
  }
  if (at !== bytes.length) throw new Error(`IVF file ends inside a frame header at byte ${at}`);
  return file;
}

/**
 * An IVF file's 32-byte header: `frames` frames of `fourcc` at width × height, times in ticks of timeBase num/den
 * seconds. A file written as its frames come may say 0 frames: neither readIvf nor ffmpeg's demuxer relies on it.
 */
export function ivfHeader(file: Omit<IvfFile, "frames">, frames: number): Buffer {
  const header = Buffer.alloc(FILE_HEADER);
  header.write("DKIF", 0, "latin1");
  header.writeUInt16LE(0, 4);
  header.writeUInt16LE(FILE_HEADER, 6);
  header.write(file.fourcc, 8, 4, "latin1");
  header.writeUInt16LE(file.width, 12);
  header.writeUInt16LE(file.height, 14);
  header.writeUInt32LE(file.timeBase.den, 16);
  header.writeUInt32LE(file.timeBase.num, 20);
  header.writeUInt32LE(frames, 24);
  return header;
}

/** One frame's 12-byte header (its size, its time), to be followed by its bytes. */
export function ivfFrameHeader(frame: IvfFrame): Buffer {
  const header = Buffer.alloc(FRAME_HEADER);
  header.writeUInt32LE(frame.data.length, 0);
  header.writeBigInt64LE(BigInt(frame.pts), 4);
  return header;
}

/** An IVF file written a frame at a time; its header's frame count is written when it is closed. */
export class IvfWriter {
  readonly #file: FileHandle;
  readonly #info: Omit<IvfFile, "frames">;
  #position = FILE_HEADER;
  #frames = 0;

  private constructor(file: FileHandle, info: Omit<IvfFile, "frames">) {
    this.#file = file;
    this.#info = info;
  }

  static async create(path: string, info: Omit<IvfFile, "frames">): Promise<IvfWriter> {
    const writer = new IvfWriter(await open(path, "w"), info);
    await writer.#file.write(ivfHeader(info, 0), 0, FILE_HEADER, 0);
    return writer;
  }

  get frames(): number {
    return this.#frames;
  }

  async append(frame: IvfFrame): Promise<void> {
    await this.#file.writev([ivfFrameHeader(frame), frame.data], this.#position);
    this.#position += FRAME_HEADER + frame.data.length;
    this.#frames++;
  }

  /** Writes the frame count and closes the file. */
  async close(): Promise<void> {
    try {
      await this.#file.write(ivfHeader(this.#info, this.#frames), 0, FILE_HEADER, 0);
    } finally {
      await this.#file.close();
    }
  }
}
