import assert from "node:assert/strict";
import { test } from "node:test";
import koffi from "koffi";
import { ActiveMap, CodecCtx, CxFrame, CxPkt, EncCfg, Image, isDeclaredLibvpx, loadLibvpx } from "./libvpx.ts";

// Sizes and offsets of libvpx 1.12's structures on x86-64 Linux, measured with offsetof() and sizeof() in a C
// program compiled against Debian bookworm's libvpx-dev 1.12.0-1+deb12u5 (vpx/vpx_encoder.h, vpx/vpx_image.h,
// vpx/vp8cx.h); CI has no headers, so they are written here rather than compiled.
const MEASURED = {
  vpx_codec_enc_cfg_t: { size: 504, g_threads: 4, g_w: 12, g_h: 16, g_timebase: 28, g_pass: 40, g_lag_in_frames: 44, rc_end_usage: 72, rc_twopass_stats_in: 80,
    rc_target_bitrate: 112, rc_min_quantizer: 116, rc_max_quantizer: 120, kf_mode: 160, kf_max_dist: 168, ss_number_layers: 172, layer_target_bitrate: 328,
    temporal_layering_mode: 376, active_wq_factor: 384, rd_mult_key_qp_fac: 496 },
  vpx_image_t: { size: 136, fmt: 0, d_w: 24, x_chroma_shift: 40, planes: 48, stride: 80, bps: 96, user_priv: 104, img_data: 112, fb_priv: 128 },
  vpx_codec_cx_pkt_t: { size: 136, kind: 0, data: 8 },
  // Offsets within the packet's union (data.frame.* less data's 8).
  vpx_codec_cx_pkt_frame_t: { buf: 0, sz: 8, pts: 16, duration: 24, flags: 32, partition_id: 36, width: 40, height: 60, spatial_layer_encoded: 80 },
  vpx_active_map_t: { size: 16, active_map: 0, rows: 8, cols: 12 },
  vpx_codec_ctx_t: { size: 56, name: 0, iface: 8, err: 16, err_detail: 24, init_flags: 32, config: 40, priv: 48 },
};

test("the structures declared have the sizes and member offsets of libvpx 1.12's headers", () => {
  const types = {
    vpx_codec_enc_cfg_t: EncCfg, vpx_image_t: Image, vpx_codec_cx_pkt_t: CxPkt, vpx_codec_cx_pkt_frame_t: CxFrame,
    vpx_active_map_t: ActiveMap, vpx_codec_ctx_t: CodecCtx,
  };
  for (const [name, measured] of Object.entries(MEASURED)) {
    const type = types[name as keyof typeof types];
    for (const [member, offset] of Object.entries(measured)) {
      if (member === "size") assert.equal(koffi.sizeof(type), offset, `sizeof ${name}`);
      else assert.equal(koffi.offsetof(type, member), offset, `${name}.${member}`);
    }
  }
});

test("the library installed is libvpx 1.12 and answers a VP9 encoder", () => {
  const loaded = loadLibvpx();
  assert.ok("lib" in loaded, "reason" in loaded ? loaded.reason : "");
  assert.equal(loaded.soname, "libvpx.so.7");
  assert.match(loaded.lib.vpx_codec_version_str(), /^v1\.12\./);
  assert.ok(loaded.lib.vpx_codec_vp9_cx() !== null);
});

test("only libvpx 1.12 is taken: a later release would accept the older ABI number with other structures", () => {
  assert.ok(isDeclaredLibvpx(0x010c00) && isDeclaredLibvpx(0x010c05));
  assert.ok(!isDeclaredLibvpx(0x010d00) && !isDeclaredLibvpx(0x010b00) && !isDeclaredLibvpx(0x020c00));
});
