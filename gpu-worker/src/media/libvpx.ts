import koffi from "koffi";

// The slice of libvpx's VP9 encoder that the overlay's WebM needs, declared from the headers of libvpx 1.12
// (vpx/vpx_encoder.h, vpx/vpx_image.h, vpx/vp8cx.h): the runtime library Debian's ffmpeg already pulls in
// (libvpx7). ffmpeg's libvpx-vp9 wrapper does not expose the encoder's active map (VP8E_SET_ACTIVEMAP), which
// skips the 16×16 blocks the caller marks unchanged; driven here in-process the encoder codes only those that
// changed. The structures' sizes and offsets are checked against the header's (libvpx.test.ts).

/** Opaque native pointers (koffi externals). */
export type Pointer = unknown;

/**
 * VPX_ENCODER_ABI_VERSION of libvpx 1.12 (15 + VPX_CODEC_ABI_VERSION 9 + VPX_EXT_RATECTRL_ABI_VERSION 1), which
 * vpx_codec_enc_init_ver compares with its own: it refuses a caller newer than itself (VPX_CODEC_ABI_MISMATCH) but
 * takes older ones, so a later libvpx is refused here by its version (LIBVPX_VERSION) before the structures are used.
 */
export const VPX_ENCODER_ABI_VERSION = 25;

/** The release whose structures are declared here: major and minor of vpx_codec_version(), any patch. */
export const LIBVPX_VERSION = { major: 1, minor: 12 };

/** Whether vpx_codec_version()'s packed version ((major << 16) | (minor << 8) | patch) has the layout declared here. */
export const isDeclaredLibvpx = (packed: number): boolean => packed >> 16 === LIBVPX_VERSION.major && ((packed >> 8) & 0xff) === LIBVPX_VERSION.minor;

/** The constants of the headers the encoder uses (enum values of vpx_encoder.h, vpx_image.h and vp8cx.h). */
export const VPX = {
  CODEC_OK: 0,
  CODEC_ABI_MISMATCH: 3,
  IMG_FMT_I420: 0x102,
  RC_ONE_PASS: 0,
  RC_MODE_VBR: 0,
  RC_MODE_Q: 3,
  KF_DISABLED: 0,
  EFLAG_FORCE_KF: 1,
  DL_REALTIME: 1,
  CODEC_CX_FRAME_PKT: 0,
  FRAME_IS_KEY: 1,
  // Control ids (enum vp8e_enc_control_id).
  SET_ACTIVEMAP: 9,
  SET_CPUUSED: 13,
  SET_ENABLEAUTOALTREF: 14,
  SET_CQ_LEVEL: 25,
  SET_LOSSLESS: 32,
  SET_AQ_MODE: 36,
  SET_COLOR_SPACE: 46,
  SET_COLOR_RANGE: 51,
} as const;

const rational = koffi.struct("vpx_rational_t", { num: "int", den: "int" });
const fixedBuf = koffi.struct("vpx_fixed_buf_t", { buf: "void *", sz: "size_t" });
const SS_MAX_LAYERS = 5;
const TS_MAX_LAYERS = 5;
const TS_MAX_PERIODICITY = 16;
const MAX_LAYERS = 12;
const RATIONAL_FACTORS = ["active_wq_factor", "err_per_mb_factor", "sr_default_decay_limit", "sr_diff_factor", "kf_err_per_mb_factor",
  "kf_frame_min_boost_factor", "kf_frame_max_boost_first_factor", "kf_frame_max_boost_subs_factor", "kf_max_total_boost_factor",
  "gf_max_total_boost_factor", "gf_frame_max_boost_factor", "zm_factor", "rd_mult_inter_qp_fac", "rd_mult_arf_qp_fac", "rd_mult_key_qp_fac"];
const uints = (names: string[]) => Object.fromEntries(names.map((name) => [name, "unsigned int"]));

/** vpx_codec_enc_cfg_t, member for member. */
export const EncCfg = koffi.struct("vpx_codec_enc_cfg_t", {
  ...uints(["g_usage", "g_threads", "g_profile", "g_w", "g_h"]),
  g_bit_depth: "int",
  g_input_bit_depth: "unsigned int",
  g_timebase: rational,
  g_error_resilient: "uint32_t",
  g_pass: "int",
  ...uints(["g_lag_in_frames", "rc_dropframe_thresh", "rc_resize_allowed", "rc_scaled_width", "rc_scaled_height", "rc_resize_up_thresh", "rc_resize_down_thresh"]),
  rc_end_usage: "int",
  rc_twopass_stats_in: fixedBuf,
  rc_firstpass_mb_stats_in: fixedBuf,
  ...uints(["rc_target_bitrate", "rc_min_quantizer", "rc_max_quantizer", "rc_undershoot_pct", "rc_overshoot_pct", "rc_buf_sz", "rc_buf_initial_sz",
    "rc_buf_optimal_sz", "rc_2pass_vbr_bias_pct", "rc_2pass_vbr_minsection_pct", "rc_2pass_vbr_maxsection_pct", "rc_2pass_vbr_corpus_complexity"]),
  kf_mode: "int",
  ...uints(["kf_min_dist", "kf_max_dist", "ss_number_layers"]),
  ss_enable_auto_alt_ref: koffi.array("int", SS_MAX_LAYERS),
  ss_target_bitrate: koffi.array("unsigned int", SS_MAX_LAYERS),
  ts_number_layers: "unsigned int",
  ts_target_bitrate: koffi.array("unsigned int", TS_MAX_LAYERS),
  ts_rate_decimator: koffi.array("unsigned int", TS_MAX_LAYERS),
  ts_periodicity: "unsigned int",
  ts_layer_id: koffi.array("unsigned int", TS_MAX_PERIODICITY),
  layer_target_bitrate: koffi.array("unsigned int", MAX_LAYERS),
  temporal_layering_mode: "int",
  use_vizier_rc_params: "int",
  ...Object.fromEntries(RATIONAL_FACTORS.map((name) => [name, rational])),
});

/** vpx_image_t. */
export const Image = koffi.struct("vpx_image_t", {
  fmt: "int",
  cs: "int",
  range: "int",
  ...uints(["w", "h", "bit_depth", "d_w", "d_h", "r_w", "r_h", "x_chroma_shift", "y_chroma_shift"]),
  planes: koffi.array("void *", 4),
  stride: koffi.array("int", 4),
  bps: "int",
  user_priv: "void *",
  img_data: "void *",
  img_data_owner: "int",
  self_allocd: "int",
  fb_priv: "void *",
});

/** The `frame` member of vpx_codec_cx_pkt_t's union. */
export const CxFrame = koffi.struct("vpx_codec_cx_pkt_frame_t", {
  buf: "void *",
  sz: "size_t",
  pts: "int64_t",
  duration: "unsigned long",
  flags: "uint32_t",
  partition_id: "int",
  width: koffi.array("unsigned int", SS_MAX_LAYERS),
  height: koffi.array("unsigned int", SS_MAX_LAYERS),
  spatial_layer_encoded: koffi.array("uint8_t", SS_MAX_LAYERS),
});

/** vpx_codec_cx_pkt_t: its kind, then a union padded to 128 bytes of which a frame packet uses `frame`. */
export const CxPkt = koffi.struct("vpx_codec_cx_pkt_t", {
  kind: "int",
  data: koffi.union("vpx_codec_cx_pkt_data_t", { frame: CxFrame, pad: koffi.array("char", 128 - 4) }),
});

/** vpx_active_map_t: one byte per 16×16 block, rows × cols, 0 = inactive (coded as skipped: the last frame's pixels). */
export const ActiveMap = koffi.struct("vpx_active_map_t", { active_map: "void *", rows: "unsigned int", cols: "unsigned int" });

/** vpx_codec_ctx_t, allocated by the caller and filled by vpx_codec_enc_init_ver. */
export const CodecCtx = koffi.struct("vpx_codec_ctx_t", {
  name: "const char *",
  iface: "void *",
  err: "int",
  err_detail: "const char *",
  init_flags: "long",
  config: "void *",
  priv: "void *",
});

export interface Libvpx {
  vpx_codec_vp9_cx(): Pointer;
  vpx_codec_version(): number;
  vpx_codec_version_str(): string;
  vpx_codec_enc_config_default(iface: Pointer, cfg: Pointer, usage: number): number;
  vpx_codec_enc_init_ver(ctx: Pointer, iface: Pointer, cfg: Pointer, flags: number, version: number): number;
  /** Variadic: the control's argument follows as a type and a value (`"int", 8` or `"void *", pointer`). */
  vpx_codec_control_(ctx: Pointer, id: number, type: string, value: unknown): number;
  vpx_codec_encode: AsyncFunction<[ctx: Pointer, img: Pointer, pts: number, duration: number, flags: number, deadline: number], number>;
  vpx_codec_get_cx_data(ctx: Pointer, iter: Pointer): Pointer;
  vpx_codec_destroy(ctx: Pointer): number;
  vpx_codec_error(ctx: Pointer): string;
  vpx_codec_error_detail(ctx: Pointer): string | null;
  vpx_img_wrap(img: Pointer, fmt: number, w: number, h: number, align: number, data: Uint8Array): Pointer;
}

/** A koffi function that may also run on a worker thread (`.async`, its result through a callback). */
export type AsyncFunction<A extends unknown[], R> = ((...args: A) => R) & { async: (...args: [...A, (error: unknown, result: R) => void]) => void };

/**
 * Debian bookworm's libvpx7 (1.12), what its ffmpeg links. Later sonames (libvpx.so.8 for 1.13, .so.9 for 1.14 and
 * 1.15) are not tried: their headers were not measured, and the encoder would take this older ABI number from them.
 */
export const LIBVPX_SONAMES = ["libvpx.so.7"];

let loaded: { lib: Libvpx; soname: string } | { reason: string } | undefined;

/** libvpx, loaded once, or why it cannot be (not installed, a symbol missing). Never throws. `sonames`: others to try, not kept. */
export function loadLibvpx(sonames?: string[]): { lib: Libvpx; soname: string } | { reason: string } {
  if (sonames !== undefined) return tryLoad(sonames);
  loaded ??= tryLoad(LIBVPX_SONAMES);
  return loaded;
}

function tryLoad(sonames: string[]): { lib: Libvpx; soname: string } | { reason: string } {
  const failures: string[] = [];
  for (const soname of sonames) {
    let handle: koffi.IKoffiLib;
    try {
      handle = koffi.load(soname);
    } catch (error) {
      failures.push(`${soname}: ${(error as Error).message}`);
      continue;
    }
    try {
      const lib = declare(handle);
      const version = lib.vpx_codec_version();
      if (isDeclaredLibvpx(version)) return { lib, soname };
      failures.push(`${soname}: libvpx ${lib.vpx_codec_version_str()}, not ${LIBVPX_VERSION.major}.${LIBVPX_VERSION.minor}`);
    } catch (error) {
      failures.push(`${soname}: ${(error as Error).message}`);
    }
  }
  return { reason: `libvpx could not be loaded (${failures.join("; ")})` };
}

function declare(lib: koffi.IKoffiLib): Libvpx {
  const fn = <K extends keyof Libvpx>(name: K, signature: string) => [name, lib.func(signature)] as const;
  return Object.fromEntries([
    fn("vpx_codec_vp9_cx", "void *vpx_codec_vp9_cx()"),
    fn("vpx_codec_version", "int vpx_codec_version()"),
    fn("vpx_codec_version_str", "const char *vpx_codec_version_str()"),
    fn("vpx_codec_enc_config_default", "int vpx_codec_enc_config_default(void *iface, void *cfg, unsigned int usage)"),
    fn("vpx_codec_enc_init_ver", "int vpx_codec_enc_init_ver(void *ctx, void *iface, void *cfg, long flags, int ver)"),
    fn("vpx_codec_control_", "int vpx_codec_control_(void *ctx, int ctrl_id, ...)"),
    fn("vpx_codec_encode", "int vpx_codec_encode(void *ctx, void *img, int64_t pts, unsigned long duration, long flags, unsigned long deadline)"),
    fn("vpx_codec_get_cx_data", "void *vpx_codec_get_cx_data(void *ctx, void *iter)"),
    fn("vpx_codec_destroy", "int vpx_codec_destroy(void *ctx)"),
    fn("vpx_codec_error", "const char *vpx_codec_error(void *ctx)"),
    fn("vpx_codec_error_detail", "const char *vpx_codec_error_detail(void *ctx)"),
    fn("vpx_img_wrap", "void *vpx_img_wrap(void *img, int fmt, unsigned int d_w, unsigned int d_h, unsigned int stride_align, uint8_t *img_data)"),
  ]) as unknown as Libvpx;
}
