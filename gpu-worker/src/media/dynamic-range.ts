import type { MediaInfo } from "./media-info.ts";

// Phones record HLG (and some PQ) by default. Our captions are sRGB pictures and our output is 8-bit
// H.264, so an HDR source is tone-mapped to SDR BT.709 before the captions go on, and tagged as such:
// kept as HLG, white captions would shine at peak brightness in an HDR-aware player, preset colours
// would shift, and 8-bit HLG bands.
const HDR_TRANSFERS = new Set(["arib-std-b67", "smpte2084"]);

export const isHdr = (media: Pick<MediaInfo, "colorTransfer">): boolean => media.colorTransfer !== null && HDR_TRANSFERS.has(media.colorTransfer);

/**
 * HDR → SDR with zscale (zimg) and tonemap: linear light with the reference white of BT.2408 (203 cd/m²)
 * as SDR's 100 %, BT.2020 → BT.709 primaries in float, then Möbius, which keeps everything up to 70 % of
 * SDR white as it is (faces, midtones, the scene's reference white at ~94 %) and rolls the highlights above
 * it off smoothly instead of clipping them; then BT.709 transfer and matrix, limited range, 8-bit.
 */
export const HDR_TO_SDR_FILTER =
  "zscale=t=linear:npl=203,format=gbrpf32le,zscale=p=bt709,tonemap=tonemap=mobius:param=0.7:desat=0,zscale=t=bt709:m=bt709:r=tv,format=yuv420p";

/** The output's colour tags when the source was tone-mapped (SDR sources keep what ffmpeg carries over). */
export const SDR_BT709_TAGS = ["-color_primaries", "bt709", "-color_trc", "bt709", "-colorspace", "bt709", "-color_range", "tv"];
