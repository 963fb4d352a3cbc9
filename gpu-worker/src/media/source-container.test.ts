import assert from "node:assert/strict";
import { test } from "node:test";
import { JobFailure } from "@caption/shared/errors/codes";
import { containerOf } from "./source-container.ts";

const box = (size: number, type: string) => Buffer.concat([Buffer.from([size >>> 24, (size >>> 16) & 255, (size >>> 8) & 255, size & 255]), Buffer.from(type, "latin1"), Buffer.alloc(8)]);

test("MP4, MOV and fast-start files by their first box; Matroska and WebM by the EBML magic", () => {
  for (const type of ["ftyp", "moov", "mdat", "free", "wide", "skip"]) assert.equal(containerOf(box(32, type)), "mov", type);
  assert.equal(containerOf(box(1, "mdat")), "mov", "64-bit box size");
  assert.equal(containerOf(Buffer.from([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x86, 0x81])), "matroska");
});

const refused = (head: string | Buffer, reason: RegExp) =>
  assert.throws(() => containerOf(Buffer.from(head)), (error: unknown) => error instanceof JobFailure && error.code === "UNSUPPORTED_FORMAT" && reason.test(error.message), String(head));

test("playlists, manifests, scripts and other files are refused, saying what they are", () => {
  refused("#EXTM3U\n#EXT-X-TARGETDURATION:2\n", /HLS playlist/);
  refused("\uFEFF  #EXTM3U\n", /HLS playlist/);
  refused('<?xml version="1.0"?><MPD>', /XML document/);
  refused("<MPD xmlns=", /XML document/);
  refused("ffconcat version 1.0\nfile '/etc/passwd'\n", /ffconcat script/);
  refused("[playlist]\nFile1=x\n", /a playlist/);
  refused("<!DOCTYPE html><html>", /HTML page/);
  refused("", /empty/);
  refused(Buffer.from([0x47, 0x40, 0x11, 0x10, 0, 0x42, 0xf0, 0x25]), /not a recognised video container/);
  refused(box(4, "ftyp"), /not a recognised/);
  refused(box(32, "abcd"), /not a recognised/);
});
