/** How long the streams of a file really run, from their packets' timestamps. */
export interface StreamExtent {
  /** From the earliest packet (negative encoder priming counts as 0) to the end of the last one, in whole ms. */
  durationSeconds: number;
  /** Packets of the video stream: its frames, whatever the header claims. */
  videoFrames: number;
  /** Packets of the audio stream (0 without one). */
  audioPackets: number;
}

/** ffprobe arguments that print `stream_index,pts_time,dts_time,duration_time` per packet. */
export const PACKET_ENTRIES = ["-show_entries", "packet=stream_index,pts_time,dts_time,duration_time", "-of", "csv=p=0"];

function finite(raw: string | undefined): number | null {
  if (raw === undefined || raw === "" || raw === "N/A") return null;
  const value = Number(raw);
  return Number.isFinite(value) ? value : null;
}

/**
 * Reads ffprobe's packet lines (see PACKET_ENTRIES) for the video and audio streams the pipeline
 * decodes. A container header can claim any duration; the packets are what ffmpeg will decode, so
 * the result is what a render of the file produces. A video packet without a duration lasts one
 * frame (`frameSeconds`). Null when neither stream has a timed packet.
 */
export function streamExtent(csv: string, streams: { video: number; audio: number | null; frameSeconds: number }): StreamExtent | null {
  let start = Number.POSITIVE_INFINITY;
  let end = Number.NEGATIVE_INFINITY;
  let videoFrames = 0;
  let audioPackets = 0;
  for (const line of csv.split("\n")) {
    const [index, pts, dts, duration] = line.split(",");
    const stream = finite(index);
    const isVideo = stream === streams.video;
    if (!isVideo && (stream === null || stream !== streams.audio)) continue;
    const at = finite(pts) ?? finite(dts);
    if (at === null) continue;
    if (isVideo) videoFrames++;
    else audioPackets++;
    const length = finite(duration);
    start = Math.min(start, at);
    end = Math.max(end, at + (length !== null && length > 0 ? length : isVideo ? streams.frameSeconds : 0));
  }
  if (!Number.isFinite(end)) return null;
  // Whole milliseconds, as container headers give it: float noise must not add a billed second.
  const durationSeconds = Math.round(Math.max(0, end - Math.max(0, start)) * 1000) / 1000;
  return { durationSeconds, videoFrames, audioPackets };
}
