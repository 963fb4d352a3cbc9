// The media toolkit other packages may use: the one ffmpeg/ffprobe wrapper, probing, decoding, encoders.
export { runFfmpeg, runFfprobe, type FfmpegProgress } from "./ffmpeg.ts";
export { probeMedia } from "./ffprobe.ts";
export type { MediaInfo } from "./media-info.ts";
export { decodePcm16kMono } from "./audio-pcm.ts";
export { X264_ENCODER, type H264Encoder } from "./h264-encoder.ts";
export { SOFTWARE_DECODER, type VideoDecoder } from "./video-decoder.ts";
export { detectHardwarePaths } from "./hardware-paths.ts";
