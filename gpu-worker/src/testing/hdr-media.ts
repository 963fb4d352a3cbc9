import { runFfmpeg } from "../media/ffmpeg.ts";

/**
 * A 10-bit HLG (BT.2020, arib-std-b67) HEVC video with AAC audio, as phones record by default: its picture
 * is a left-to-right ramp of the HLG signal from 0 to 100 % (limited range), so a test can read what each
 * signal level became.
 */
export async function makeHlgRampVideo(path: string, options: { width: number; height: number; seconds: number }): Promise<void> {
  const { width, height, seconds } = options;
  await runFfmpeg({
    args: [
      "-hide_banner", "-loglevel", "error", "-y",
      "-f", "lavfi", "-i", `nullsrc=s=${width}x${height}:r=25,format=yuv420p10le,geq=lum='64+X/${width - 1}*876':cb=512:cr=512`,
      "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000",
      "-t", String(seconds),
      "-c:v", "libx265", "-preset", "ultrafast", "-x265-params", "colorprim=bt2020:transfer=arib-std-b67:colormatrix=bt2020nc:range=limited:log-level=error",
      "-color_primaries", "bt2020", "-color_trc", "arib-std-b67", "-colorspace", "bt2020nc", "-color_range", "tv",
      "-c:a", "aac", "-f", "mp4", path,
    ],
  });
}
