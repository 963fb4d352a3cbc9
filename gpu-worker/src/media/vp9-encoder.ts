import koffi from "koffi";
import { ActiveMap, CodecCtx, CxFrame, CxPkt, EncCfg, Image, loadLibvpx, VPX, VPX_ENCODER_ABI_VERSION, type Libvpx, type Pointer } from "./libvpx.ts";

// libvpx's VP9 encoder in-process, with the settings ffmpeg's libvpx-vp9 is given for the overlay's WebM
// (render/overlay-output.ts: overlayColourArgs, overlayAlphaArgs), plus what ffmpeg cannot pass: an active map a
// frame, so that only the 16×16 blocks that changed are coded and the others are skipped (the last frame's pixels).
// libvpx's real-time cost is otherwise the frame's area although a caption band changes a few percent of it.
// encode runs on one of libuv's threads (koffi's .async), never on the event loop.

/**
 * The stack koffi gives a call made with .async (its default, 128 KiB): libvpx 1.12's VP9 encoder used at most
 * 60 544 bytes of it, measured with a painted thread stack encoding random 1080×1920 and 320×240 frames, key and
 * inter, lossy and lossless. A process that configured koffi with less is refused rather than overrun.
 */
export const MIN_ASYNC_STACK_BYTES = 128 * 1024;

export interface Vp9EncoderOptions {
  /** Even sizes (4:2:0 planes of half the size each way). */
  width: number;
  height: number;
  /** VP9's lossless mode (the alpha plane); else constant quality `cqLevel` (the colour planes). */
  lossless: boolean;
  /** VP9's quantiser level of the constant quality (0–63), CRF 15 for the overlay's colour. */
  cqLevel?: number;
  /** libvpx's cpu-used, 8 its fastest for real time. */
  speed?: number;
  threads?: number;
}

export interface Vp9Packet {
  /** Milliseconds: the encoder's time base is 1/1000. */
  pts: number;
  data: Buffer;
  key: boolean;
}

export interface EncodeFrameOptions {
  /** A key frame (a seek point); every other frame refers to the last. The first frame is a key frame whatever this says. */
  key: boolean;
  /**
   * One byte per 16×16 block of the frame, row by row ((height+15)>>4 rows of (width+15)>>4), non-zero where the frame
   * may differ from the last one given: the other blocks keep the last frame's decoded pixels, whatever the input holds
   * there. Ignored on key frames; without it every block is coded.
   */
  active?: Uint8Array;
}

export type OpenVp9Encoder = { encoder: Vp9Encoder; reason?: undefined } | { encoder?: undefined; reason: string };

/** What tests change: the libraries tried, the encoder ABI announced to libvpx. */
export interface LibvpxChoice {
  sonames?: string[];
  abiVersion?: number;
}

/** The encoder, or why libvpx cannot be used here (not installed, another ABI): the caller then encodes with ffmpeg. */
export function openVp9Encoder(options: Vp9EncoderOptions, choice: LibvpxChoice = {}): OpenVp9Encoder {
  const { width, height } = options;
  if (!(Number.isInteger(width) && Number.isInteger(height) && width >= 2 && height >= 2 && width % 2 === 0 && height % 2 === 0)) {
    throw new RangeError(`VP9 frame size must be even and at least 2×2, got ${width}×${height}`);
  }
  const stack = koffi.config().async_stack_size ?? 0;
  if (stack < MIN_ASYNC_STACK_BYTES) return { reason: `koffi's async stack is ${stack} bytes, libvpx needs ${MIN_ASYNC_STACK_BYTES}` };
  const loaded = loadLibvpx(choice.sonames);
  if ("reason" in loaded) return { reason: loaded.reason };
  const { lib } = loaded;
  const ctx = zeroed(CodecCtx);
  const cfgPtr = zeroed(EncCfg);
  let ownedByEncoder = false;
  try {
    const iface = lib.vpx_codec_vp9_cx();
    if (lib.vpx_codec_enc_config_default(iface, cfgPtr, 0) !== VPX.CODEC_OK) return { reason: "vpx_codec_enc_config_default refused VP9" };
    const cfg = koffi.decode(cfgPtr, EncCfg) as Record<string, unknown>;
    koffi.encode(cfgPtr, EncCfg, {
      ...cfg,
      g_w: width,
      g_h: height,
      g_threads: options.threads ?? 1,
      g_timebase: { num: 1, den: 1000 },
      g_pass: VPX.RC_ONE_PASS,
      g_lag_in_frames: 0,
      // As ffmpeg configures them: lossless leaves libvpx's variable bitrate (its default, 256 kb/s) with the quantiser
      // pinned to 0; the colour is a constant quality (-crf with -b:v 0).
      rc_end_usage: options.lossless ? VPX.RC_MODE_VBR : VPX.RC_MODE_Q,
      rc_min_quantizer: 0,
      rc_max_quantizer: options.lossless ? 0 : 63,
      kf_mode: VPX.KF_DISABLED,
    });
    const status = lib.vpx_codec_enc_init_ver(ctx, iface, cfgPtr, 0, choice.abiVersion ?? VPX_ENCODER_ABI_VERSION);
    if (status !== VPX.CODEC_OK) {
      const why = status === VPX.CODEC_ABI_MISMATCH ? "ABI mismatch" : `${lib.vpx_codec_error(ctx)} ${lib.vpx_codec_error_detail(ctx) ?? ""}`;
      return { reason: `libvpx ${lib.vpx_codec_version_str()} refused the encoder (${why.trim()})` };
    }
    const encoder = new Vp9Encoder(lib, ctx, options);
    ownedByEncoder = true;
    try {
      encoder.configure(options);
    } catch (error) {
      encoder.close();
      return { reason: (error as Error).message };
    }
    return { encoder };
  } finally {
    koffi.free(cfgPtr);
    if (!ownedByEncoder) koffi.free(ctx);
  }
}

function zeroed(type: koffi.IKoffiCType): Pointer {
  const pointer = koffi.alloc(type, 1);
  new Uint8Array(koffi.view(pointer, koffi.sizeof(type))).fill(0);
  return pointer;
}

/** One VP9 stream of I420 frames (Y, then U, then V, tightly packed), a frame at a time. */
export class Vp9Encoder {
  readonly width: number;
  readonly height: number;
  /** The active map's size, in 16×16 blocks. */
  readonly rows: number;
  readonly cols: number;
  private readonly image = zeroed(Image);
  private readonly iterator = koffi.alloc("void *", 1);
  private readonly mapBytes: Pointer;
  private readonly mapView: Uint8Array;
  private readonly activeMap = zeroed(ActiveMap);
  private readonly noMap = zeroed(ActiveMap);
  private readonly lib: Libvpx;
  private readonly ctx: Pointer;
  private busy = false;
  private closed = false;
  /** close() was called during an encode: the encoder is freed once libvpx is done with it. */
  private closing = false;

  constructor(lib: Libvpx, ctx: Pointer, options: Vp9EncoderOptions) {
    this.lib = lib;
    this.ctx = ctx;
    this.width = options.width;
    this.height = options.height;
    this.rows = (this.height + 15) >> 4;
    this.cols = (this.width + 15) >> 4;
    this.mapBytes = koffi.alloc("uint8_t", this.rows * this.cols);
    this.mapView = new Uint8Array(koffi.view(this.mapBytes, this.rows * this.cols));
    koffi.encode(this.activeMap, ActiveMap, { active_map: this.mapBytes, rows: this.rows, cols: this.cols });
    // A map without blocks turns the map off: every block coded.
    koffi.encode(this.noMap, ActiveMap, { active_map: null, rows: this.rows, cols: this.cols });
  }

  /** The bytes of one I420 frame. */
  get frameBytes(): number {
    return this.width * this.height + 2 * (this.width / 2) * (this.height / 2);
  }

  /** @internal The controls ffmpeg's libvpx-vp9 sets for the overlay's arguments. */
  configure(options: Vp9EncoderOptions): void {
    this.control(VPX.SET_CPUUSED, options.speed ?? 8);
    this.control(VPX.SET_ENABLEAUTOALTREF, 0);
    this.control(VPX.SET_AQ_MODE, 0);
    this.control(VPX.SET_CQ_LEVEL, options.cqLevel ?? 15);
    if (options.lossless) this.control(VPX.SET_LOSSLESS, 1);
    // What ffmpeg tells libvpx of a stream without colour tags in the studio range: unknown space, studio range.
    this.control(VPX.SET_COLOR_SPACE, 0);
    this.control(VPX.SET_COLOR_RANGE, 0);
  }

  private control(id: number, value: number | Pointer, type = "int"): void {
    const status = this.lib.vpx_codec_control_(this.ctx, id, type, value);
    if (status !== VPX.CODEC_OK) throw new Error(`libvpx control ${id}: ${this.error()}`);
  }

  private error(): string {
    return `${this.lib.vpx_codec_error(this.ctx)} ${this.lib.vpx_codec_error_detail(this.ctx) ?? ""}`.trim();
  }

  /**
   * Encodes one frame at `ptsMs` on a libuv thread; answers the packets it made (one a frame: no look-ahead). The
   * frame's bytes are read until the promise settles: the caller must not write them before. One call at a time.
   */
  async encode(i420: Uint8Array, ptsMs: number, options: EncodeFrameOptions): Promise<Vp9Packet[]> {
    if (this.closed || this.closing) throw new Error("the VP9 encoder is closed");
    if (this.busy) throw new Error("the VP9 encoder is already encoding a frame");
    if (i420.length !== this.frameBytes) throw new RangeError(`expected an I420 frame of ${this.frameBytes} bytes, got ${i420.length}`);
    if (!Number.isSafeInteger(ptsMs)) throw new RangeError(`frame time must be whole milliseconds, got ${ptsMs}`);
    if (options.active !== undefined && options.active.length !== this.rows * this.cols) {
      throw new RangeError(`expected an active map of ${this.rows}×${this.cols} blocks, got ${options.active.length}`);
    }
    this.busy = true;
    try {
      // The image points at the caller's bytes (koffi passes a typed array's own memory), which stay put while referenced.
      this.lib.vpx_img_wrap(this.image, VPX.IMG_FMT_I420, this.width, this.height, 1, i420);
      if (!options.key) {
        if (options.active === undefined) this.control(VPX.SET_ACTIVEMAP, this.noMap, "void *");
        else {
          for (let i = 0; i < options.active.length; i++) this.mapView[i] = options.active[i] === 0 ? 0 : 1;
          this.control(VPX.SET_ACTIVEMAP, this.activeMap, "void *");
        }
      }
      const flags = options.key ? VPX.EFLAG_FORCE_KF : 0;
      const status = await new Promise<number>((resolve, reject) => {
        const done = (error: unknown, result: number) => (error ? reject(error as Error) : resolve(result));
        this.lib.vpx_codec_encode.async(this.ctx, this.image, ptsMs, 1, flags, VPX.DL_REALTIME, done);
      });
      // Kept referenced until libvpx is done with it.
      void i420.length;
      if (status !== VPX.CODEC_OK) throw new Error(`libvpx could not encode the frame at ${ptsMs} ms: ${this.error()}`);
      return this.packets();
    } finally {
      this.busy = false;
      if (this.closing) this.close();
    }
  }

  private packets(): Vp9Packet[] {
    const packets: Vp9Packet[] = [];
    koffi.encode(this.iterator, "void *", null);
    const frameAt = koffi.offsetof(CxPkt, "data");
    const next = () => this.lib.vpx_codec_get_cx_data(this.ctx, this.iterator);
    for (let packet = next(); packet !== null; packet = next()) {
      if (koffi.decode(packet, "int") !== VPX.CODEC_CX_FRAME_PKT) continue;
      const frame = koffi.decode(packet, frameAt, CxFrame) as { buf: Pointer; sz: number; pts: number | bigint; flags: number };
      const data = Buffer.from(new Uint8Array(koffi.view(frame.buf, Number(frame.sz))));
      packets.push({ pts: Number(frame.pts), data, key: (frame.flags & VPX.FRAME_IS_KEY) !== 0 });
    }
    return packets;
  }

  /**
   * Frees the encoder (idempotent). During an encode (a render aborted while libvpx codes a frame on its thread)
   * the encoder is freed once that frame is done; no frame is taken after this call either way.
   */
  close(): void {
    if (this.closed) return;
    if (this.busy) {
      this.closing = true;
      return;
    }
    this.closed = true;
    this.lib.vpx_codec_destroy(this.ctx);
    for (const pointer of [this.ctx, this.image, this.iterator, this.mapBytes, this.activeMap, this.noMap]) koffi.free(pointer);
  }
}
