import assert from "node:assert/strict";
import { test } from "node:test";
import { streamExtent } from "./stream-extent.ts";

const streams = { video: 0, audio: 1, frameSeconds: 0.1 };

test("the duration runs from the first packet to the end of the last, over video and audio", () => {
  const csv = ["0,0.000000,0.000000,0.100000", "1,0.000000,0.000000,0.021333", "0,0.100000,0.100000,0.100000", "1,0.250000,0.250000,0.021333", ""].join("\n");
  assert.deepEqual(streamExtent(csv, streams), { durationSeconds: 0.271, videoFrames: 2, audioPackets: 2 });
});

test("encoder priming before zero is not counted; a later start is", () => {
  const priming = ["1,-0.023220,-0.023220,0.023220", "0,0.000000,0.000000,0.100000", "1,0.000000,0.000000,1.000000"].join("\n");
  assert.equal(streamExtent(priming, streams)?.durationSeconds, 1);
  const offset = ["0,10.000000,10.000000,0.500000", "1,10.000000,10.000000,1.000000"].join("\n");
  assert.equal(streamExtent(offset, streams)?.durationSeconds, 1);
});

test("other streams, untimed packets and junk lines are ignored; pts falls back to dts", () => {
  const csv = ["2,0.000000,0.000000,99.000000", "0,N/A,N/A,0.1", "0,N/A,1.000000,0.500000", "garbage", ",,,", "1,1.200000,1.200000,"].join("\n");
  assert.deepEqual(streamExtent(csv, streams), { durationSeconds: 0.5, videoFrames: 1, audioPackets: 1 });
});

test("a video packet without a duration lasts one frame; an audio one lasts nothing", () => {
  assert.equal(streamExtent("0,2.000000,2.000000,", { ...streams, audio: null })?.durationSeconds, 0.1);
  assert.equal(streamExtent("0,0.0,0.0,0.1\n1,5.000000,5.000000,", streams)?.durationSeconds, 5);
});

test("no timed packet of either stream: null", () => {
  assert.equal(streamExtent("", streams), null);
  assert.equal(streamExtent("2,0.0,0.0,1.0", streams), null);
});
