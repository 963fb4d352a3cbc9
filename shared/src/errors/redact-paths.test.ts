import assert from "node:assert/strict";
import { test } from "node:test";
import { withoutPaths } from "./redact-paths.ts";

test("absolute paths and file: URLs become 'the file'; other slashes stay", () => {
  const cases: [string, string][] = [
    ["file:/data/work/job_01-abc/source: Invalid data found when processing input", "the file: Invalid data found when processing input"],
    ["/srv/x y: No such file", "the file y: No such file"],
    ["[hls @ 0x55] URL '/etc/passwd' is not allowed", "[hls @ 0x55] URL 'the file' is not allowed"],
    ["rate 30000/1001, https://example.com/a/b.mp4", "rate 30000/1001, https://example.com/a/b.mp4"],
    ["open(/var/lib/models/x.onnx) failed", "open(the file) failed"],
  ];
  for (const [message, expected] of cases) assert.equal(withoutPaths(message), expected);
});
