import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { runFfmpeg, runFfprobe } from "../media/ffmpeg.ts";
import { probeMedia } from "../media/ffprobe.ts";
import { X264_ENCODER } from "../media/h264-encoder.ts";
import { writeUncaptionedMp4 } from "./uncaptioned-video.ts";

const dir = await mkdtemp(join(tmpdir(), "uncaptioned-video-"));
test.after(() => rm(dir, { recursive: true, force: true }));

test("an odd-sized ProRes source, which MP4 cannot hold as it is, is encoded to H.264 padded to even", async () => {
  const source = join(dir, "odd.mov");
  await runFfmpeg({
    args: ["-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=362x642:rate=30:duration=1", "-f", "lavfi", "-i", "sine=duration=1",
      "-vf", "crop=361:641:0:0:exact=1,format=yuv422p10le", "-c:v", "prores_ks", "-c:a", "pcm_s16le", source],
  });
  const media = await probeMedia(source);
  assert.deepEqual([media.videoCodec, media.width, media.height], ["prores", 361, 641]);
  const output = join(dir, "uncaptioned.mp4");
  assert.deepEqual(await writeUncaptionedMp4({ inputPath: source, outputPath: output, media, encoder: X264_ENCODER }), { copied: false });
  const probed = await runFfprobe({ args: ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=codec_name,width,height", "-of", "csv=p=0", output] });
  assert.equal(probed.trim(), "h264,362,642");
});
