import assert from "node:assert/strict";
import { test } from "node:test";
import { AlphaTrack, keyFrameExpression } from "./alpha-track.ts";

const plane = (...values: number[]) => Uint8Array.from(values);

test("an alpha plane is sent with the first frame, where it changes, and at each key frame", () => {
  const track = new AlphaTrack(1000);
  const sent = [
    [0, plane(0, 255)],
    [100, plane(0, 255)],
    [200, plane(0, 128)],
    [300, plane(0, 128)],
    [1100, plane(0, 128)],
    [1200, plane(255, 128)],
    [1900, plane(255, 128)],
    [2100, plane(255, 128)],
  ] as const;
  assert.deepEqual(sent.map(([ms, alpha]) => track.take(ms, alpha)), [true, false, true, false, true, true, false, true]);
});

test("the plane is compared with a copy: changing the picture in place after sending it is seen", () => {
  const track = new AlphaTrack(10_000);
  const picture = plane(0, 0, 0);
  assert.equal(track.take(0, picture), true);
  picture[2] = 7;
  assert.equal(track.take(40, picture), true);
  assert.equal(track.take(80, picture), false);
});

test("ffmpeg's key frame rule is the track's, to half a millisecond", () => {
  assert.equal(keyFrameExpression(4000), "expr:isnan(prev_forced_t)+gte(t,prev_forced_t+3.9995)");
  assert.throws(() => new AlphaTrack(0), RangeError);
  assert.throws(() => new AlphaTrack(2.5), RangeError);
});
