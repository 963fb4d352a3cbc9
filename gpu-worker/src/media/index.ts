// The media toolkit other packages may use: the one ffmpeg/ffprobe wrapper, probing, decoding, encoders.
export { runFfmpeg, runFfprobe, type FfmpegProgress } from "./ffmpeg.ts";
export { probeMedia } from "./ffprobe.ts";
export type { MediaInfo } from "./media-info.ts";
export { decodePcm16kMono } from "./audio-pcm.ts";
export { X264_ENCODER, type H264Encoder } from "./h264-encoder.ts";
export { SOFTWARE_DECODER, type VideoDecoder } from "./video-decoder.ts";
export { detectHardwarePaths } from "./hardware-paths.ts";
// The overlay WebM's VP9 encoder in-process (libvpx), coding only the blocks that changed.
export { openVp9Encoder, Vp9Encoder, type Vp9Packet, type Vp9EncoderOptions } from "./vp9-encoder.ts";
export { blankI420, updateBandI420, updatePlane } from "./i420-canvas.ts";
export { IvfWriter } from "./ivf.ts";
