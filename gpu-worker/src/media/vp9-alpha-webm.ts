import { EncodedPacket, EncodedPacketSink, EncodedVideoPacketSource, FilePathSource, FilePathTarget, Input, MATROSKA, Output, WEBM, WebMOutputFormat } from "mediabunny";

// A WebM with alpha made of two VP9 streams encoded apart by ffmpeg: the colour planes, a frame wherever the
// picture changes, and the alpha plane (as the luma of a 4:2:0 picture, what libvpx's alpha encoder is given), a
// frame only where the alpha changes and at each of the colour's key frames, which are its own key frames (both
// encoders choose them by one rule: render/alpha-track.ts). Each colour frame carries its alpha as a Matroska
// BlockAdditional (ID 1), as ffmpeg's libvpx encoder writes it and Chromium reads it; mediabunny reads the two
// streams and writes the WebM (Cues, Duration, the alpha side data), so this file holds no Matroska of its own.
//
// The WebM is constant-rate: one frame per frame of the video. A frame where neither stream changed is a one-byte
// VP9 frame that shows the decoder's last frame again (show_existing_frame), for the colour and the alpha alike,
// so a player or ffmpeg seeking to any instant finds the frame of that instant, as in the burned video.

/**
 * A VP9 frame of profile 0 that shows reference slot 0 again, decoding nothing: frame marker 0b10, profile 0,
 * show_existing_frame 1, frame_to_show_map_idx 0. libvpx's encoder refreshes slot 0 (its last frame) with every
 * frame it shows when it codes no hidden frames (real time, no look-ahead, no alternate reference:
 * render/overlay-output.ts), and a key frame all slots: slot 0 is the stream's last frame.
 */
export const SHOW_LAST_VP9_FRAME = Buffer.from([0x88]);

/** A VP9 frame's first byte: a key frame shows no existing frame and has frame_type 0 (profiles 0 to 2). */
export const isVp9KeyFrame = (frame: Uint8Array): boolean => frame.length > 0 && (frame[0]! & 0xc0) === 0x80 && (frame[0]! & 0x0c) === 0;

/** A VP9 frame of one stream at its millisecond. */
export interface Vp9Frame {
  ms: number;
  data: Uint8Array;
}

/** A frame of the WebM: its colour frame and the alpha frame it carries. */
export interface AlphaFrame {
  ms: number;
  colour: Uint8Array;
  alpha: Uint8Array;
}

/**
 * Colour frames, each with its alpha frame: the alpha frame of its very time, else the last one shown again. A
 * player seeking starts decoding at a colour key frame: the alpha frame beside it must be a key frame too, and
 * an alpha key frame is only where the colour has one (else the colour frames after it would refer to alpha
 * frames before it that a seek there never decoded).
 */
export async function* pairAlpha(colour: AsyncIterable<Vp9Frame>, alpha: AsyncIterable<Vp9Frame>): AsyncGenerator<AlphaFrame> {
  const alphaFrames = alpha[Symbol.asyncIterator]();
  let own = await alphaFrames.next();
  for await (const frame of colour) {
    const key = isVp9KeyFrame(frame.data);
    if (!own.done && own.value.ms === frame.ms) {
      if (isVp9KeyFrame(own.value.data) !== key) throw new Error(`at ${frame.ms} ms the colour frame is ${key ? "" : "not "}a key frame and the alpha frame ${key ? "not" : "is"}`);
      yield { ms: frame.ms, colour: frame.data, alpha: own.value.data };
      own = await alphaFrames.next();
      continue;
    }
    if (key || (!own.done && own.value.ms < frame.ms)) throw new Error(`no alpha frame for the colour frame at ${frame.ms} ms`);
    yield { ms: frame.ms, colour: frame.data, alpha: SHOW_LAST_VP9_FRAME };
  }
  if (!own.done) throw new Error(`the alpha frame at ${own.value.ms} ms has no colour frame`);
}

/** The video's frame grid: `frames` frames, the i-th shown from `frameMs(i)` (increasing). */
export interface FrameGrid {
  frames: number;
  frameMs: (index: number) => number;
}

/**
 * The frames one per frame of the grid: each frame as it comes, and at each instant of the grid without a frame
 * of its own, a frame showing the last one again. The first frame must be at the grid's first instant.
 */
export async function* onFrameGrid(frames: AsyncIterable<AlphaFrame>, grid: FrameGrid): AsyncGenerator<AlphaFrame & { repeated: boolean }> {
  const coming = frames[Symbol.asyncIterator]();
  let next = await coming.next();
  if (next.done || next.value.ms !== grid.frameMs(0)) throw new Error(`the first frame is not at ${grid.frameMs(0)} ms`);
  for (let index = 0; index < grid.frames; index++) {
    const ms = grid.frameMs(index);
    let own = false;
    for (; !next.done && next.value.ms <= ms; next = await coming.next()) {
      own = next.value.ms === ms;
      yield { ...next.value, repeated: false };
    }
    if (!own) yield { ms, colour: SHOW_LAST_VP9_FRAME, alpha: SHOW_LAST_VP9_FRAME, repeated: true };
  }
  // Frames past the grid's last instant (before the video's end) as they are.
  for (; !next.done; next = await coming.next()) yield { ...next.value, repeated: false };
}

/** The VP9 frames of a WebM or Matroska file's video track, in order, with their times in milliseconds. */
export async function* vp9Frames(path: string): AsyncGenerator<Vp9Frame> {
  const input = new Input({ source: new FilePathSource(path), formats: [WEBM, MATROSKA] });
  try {
    const track = await input.getPrimaryVideoTrack();
    if (track === null || track.codec !== "vp9") throw new Error(`${path}: no VP9 video track`);
    for await (const packet of new EncodedPacketSink(track).packets()) yield { ms: Math.round(packet.timestamp * 1000), data: packet.data };
  } finally {
    input.dispose();
  }
}

/**
 * Writes `paths.webm` from the colour and alpha streams (WebM files ffmpeg wrote; the caller's to remove), one
 * frame per frame of `grid`, each `frameSeconds` long. Answers how many frames each stream had and how many
 * frames only show the last one again.
 */
export async function writeAlphaWebm(
  paths: { colour: string; alpha: string; webm: string },
  video: { width: number; height: number; grid: FrameGrid; frameSeconds: number },
  signal?: AbortSignal,
): Promise<{ colourFrames: number; alphaFrames: number; repeatedFrames: number }> {
  const counts = { colourFrames: 0, alphaFrames: 0, repeatedFrames: 0 };
  const counted = async function* (frames: AsyncIterable<Vp9Frame>, key: "colourFrames" | "alphaFrames") {
    for await (const frame of frames) {
      counts[key]++;
      yield frame;
    }
  };
  const output = new Output({ format: new WebMOutputFormat(), target: new FilePathTarget(paths.webm) });
  const source = new EncodedVideoPacketSource("vp9");
  output.addVideoTrack(source);
  await output.start();
  let first = true;
  try {
    // Profile 0, level 4.1 (up to 1080p at 60 fps: the largest video accepted), 8 bits.
    const meta = { decoderConfig: { codec: "vp09.00.41.08", codedWidth: video.width, codedHeight: video.height } };
    const paired = pairAlpha(counted(vp9Frames(paths.colour), "colourFrames"), counted(vp9Frames(paths.alpha), "alphaFrames"));
    for await (const frame of onFrameGrid(paired, video.grid)) {
      signal?.throwIfAborted();
      if (frame.repeated) counts.repeatedFrames++;
      const type = isVp9KeyFrame(frame.colour) ? "key" : "delta";
      const packet = new EncodedPacket(frame.colour, type, frame.ms / 1000, video.frameSeconds, -1, undefined, { alpha: frame.alpha });
      await source.add(packet, first ? meta : undefined);
      first = false;
    }
    await output.finalize();
  } catch (error) {
    await output.cancel();
    throw error;
  }
  return counts;
}
