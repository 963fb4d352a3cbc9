import type { Ref } from "preact";
import type { Job } from "../api/types.ts";

interface Props {
  job: Job;
  videoRef: Ref<HTMLVideoElement>;
}

/** The captioned video in the page, its poster and strip, and every file the job has. */
export function Result({ job, videoRef }: Props) {
  const video = job.video;
  const { subtitles } = job;
  const downloads: [string, string | null | undefined][] = [
    ["Download MP4", video?.url],
    ["Download SRT", subtitles.srt_url],
    ["Download WebVTT", subtitles.vtt_url],
    ["Download ASS", subtitles.ass_url],
    ["Download transcript", subtitles.transcript_url],
    ["Download quality report", subtitles.quality_url],
    ["Download overlay (WebM)", video?.overlay_urls?.webm_url],
    ["Download overlay (MOV)", video?.overlay_urls?.mov_url],
    ["Download poster", video?.poster_url],
    ["Download preview strip", video?.preview_strip_url],
  ];
  return (
    <section aria-labelledby="result-heading" class="result">
      <h3 id="result-heading">Result</h3>
      {video ? (
        <video ref={videoRef} src={video.url} poster={video.poster_url ?? undefined} controls preload="metadata" aria-label="Captioned video" class="result-video" />
      ) : (
        <p>The files have expired; they are kept 24 hours.</p>
      )}
      {video && !video.captioned && <p class="rule">The video is without captions: the overlay files carry them, to lay over it in an editor.</p>}
      {video?.preview_strip_url && <img class="strip" src={video.preview_strip_url} alt="Eight captioned frames, evenly spaced over the video" />}
      <ul class="downloads">
        {downloads.filter(([, url]) => url).map(([name, url]) => (
          <li key={name}>
            <a href={url!} download>{name}</a>
          </li>
        ))}
      </ul>
    </section>
  );
}
