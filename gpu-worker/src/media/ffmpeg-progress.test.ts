import assert from "node:assert/strict";
import { test } from "node:test";
import { createProgressParser, type FfmpegProgress } from "./ffmpeg-progress.ts";

// Recorded from ffmpeg 5.1: `-progress pipe:1 -nostats`, lavfi testsrc2 + sine to H.264/AAC MP4.
const VIDEO_RUN = `frame=1
fps=0.00
stream_0_0_q=0.0
bitrate=N/A
total_size=48
out_time_us=0
out_time_ms=0
out_time=00:00:00.000000
dup_frames=0
drop_frames=0
speed=   0x
progress=continue
frame=60
fps=0.00
stream_0_0_q=-1.0
bitrate= 856.2kbits/s
total_size=216200
out_time_us=2020136
out_time_ms=2020136
out_time=00:00:02.020136
dup_frames=0
drop_frames=0
speed=47.1x
progress=end
`;

// Recorded from an audio-only run: no frame/fps lines, N/A speed.
const AUDIO_RUN = `bitrate=N/A
total_size=N/A
out_time_us=23220
out_time_ms=23220
out_time=00:00:00.023220
dup_frames=0
drop_frames=0
speed=N/A
progress=continue
`;

const EXPECTED_VIDEO: FfmpegProgress[] = [
  { frame: 1, fps: 0, outTimeSeconds: 0, speed: 0, done: false },
  { frame: 60, fps: 0, outTimeSeconds: 2.020136, speed: 47.1, done: true },
];

test("parses a recorded video run into one progress per block", () => {
  assert.deepEqual(createProgressParser().push(VIDEO_RUN), EXPECTED_VIDEO);
});

test("missing and N/A values become null", () => {
  assert.deepEqual(createProgressParser().push(AUDIO_RUN), [
    { frame: null, fps: null, outTimeSeconds: 0.02322, speed: null, done: false },
  ]);
});

test("chunks split anywhere give the same blocks", () => {
  for (let cut = 0; cut <= VIDEO_RUN.length; cut++) {
    const parser = createProgressParser();
    const blocks = [...parser.push(VIDEO_RUN.slice(0, cut)), ...parser.push(VIDEO_RUN.slice(cut))];
    assert.deepEqual(blocks, EXPECTED_VIDEO, `split at ${cut}`);
  }
  const parser = createProgressParser();
  const oneByOne = [...VIDEO_RUN].flatMap((char) => parser.push(char));
  assert.deepEqual(oneByOne, EXPECTED_VIDEO);
});

test("a block is emitted only once its progress line is complete", () => {
  const parser = createProgressParser();
  assert.deepEqual(parser.push("frame=5\nout_time_us=100000\nprogress=contin"), []);
  assert.deepEqual(parser.push("ue\r\n"), [{ frame: 5, fps: null, outTimeSeconds: 0.1, speed: null, done: false }]);
});

test("the negative out_time ffmpeg prints before the first packet is unknown", () => {
  const blocks = createProgressParser().push(
    "frame=0\nout_time_us=-9223372036854775807\nout_time=-2562047788:00:54.775807\nprogress=continue\n",
  );
  assert.equal(blocks[0]?.outTimeSeconds, null);
});

test("falls back to the out_time clock when out_time_us is N/A", () => {
  const blocks = createProgressParser().push("out_time_us=N/A\nout_time=01:02:03.500000\nprogress=end\n");
  assert.deepEqual(blocks, [{ frame: null, fps: null, outTimeSeconds: 3723.5, speed: null, done: true }]);
});
