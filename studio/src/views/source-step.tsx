import { useState } from "preact/hooks";
import { plainWords } from "../api/client.ts";
import { startUpload, type RunningUpload } from "../api/uploader.ts";
import { CHECKERBOARD, uploadCanvas, videoFacts, type Canvas } from "../look/previews.ts";

/** Where the video comes from, once the service can read it: an upload (with its canvas) or a URL. */
export type Source = { kind: "upload"; uploadId: string; canvas: Canvas; name: string } | { kind: "url"; url: string; canvas: Canvas };

interface Props {
  apiKey: string;
  onReady(source: Source): void;
}

interface Sending {
  name: string;
  sent: number;
  total: number;
  paused: boolean;
  resumed: boolean;
  upload: RunningUpload | null;
}

/** Choose or drop a file (sent over tus at once, with pause and resume), or paste an HTTPS URL. */
export function SourceStep({ apiKey, onReady }: Props) {
  const [sending, setSending] = useState<Sending | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [url, setUrl] = useState("");
  const [dragging, setDragging] = useState(false);

  const send = async (file: File) => {
    setProblem(null);
    setSending({ name: file.name, sent: 0, total: file.size, paused: false, resumed: false, upload: null });
    // The size the previews are drawn at, read by the browser while the bytes go.
    const facts = videoFacts(file);
    try {
      const upload = await startUpload(apiKey, file, {
        onProgress: (sent, total) => setSending((now) => now && { ...now, sent, total }),
        onDone: (uploadId) => void facts.then((known) => onReady({ kind: "upload", uploadId, canvas: uploadCanvas(uploadId, known), name: file.name })),
        onError: (error) => setProblem(plainWords(error)),
      });
      setSending((now) => now && { ...now, upload, resumed: upload.resumed });
    } catch (error) {
      setSending(null);
      setProblem(plainWords(error));
    }
  };

  const togglePause = () => {
    if (!sending?.upload) return;
    if (sending.paused) sending.upload.resume();
    else sending.upload.pause();
    setSending({ ...sending, paused: !sending.paused });
  };

  const useUrl = (event: Event) => {
    event.preventDefault();
    const trimmed = url.trim();
    if (!/^https:\/\/[^/?#@\s]/iu.test(trimmed)) return setProblem("Video URL must be an https:// address of an MP4, MOV or WebM file");
    setProblem(null);
    onReady({ kind: "url", url: trimmed, canvas: CHECKERBOARD });
  };

  const percent = sending && sending.total > 0 ? Math.floor((sending.sent / sending.total) * 100) : 0;
  return (
    <section aria-labelledby="source-heading" class="source">
      <h3 id="source-heading">Your video</h3>
      <div
        class={dragging ? "drop dragging" : "drop"}
        onDragOver={(event) => { event.preventDefault(); setDragging(true); }}
        onDragLeave={() => setDragging(false)}
        onDrop={(event) => {
          event.preventDefault();
          setDragging(false);
          const file = event.dataTransfer?.files[0];
          if (file) void send(file);
        }}
      >
        <label for="video-file">Video file</label>
        <input id="video-file" type="file" accept="video/mp4,video/quicktime,video/webm,.mp4,.mov,.webm" aria-describedby="video-file-rule" onChange={(e) => { const file = e.currentTarget.files?.[0]; if (file) void send(file); }} />
        <span id="video-file-rule" class="rule">MP4, MOV or WebM, up to 10 minutes and 1080p; or drop it here</span>
      </div>
      {sending && (
        <div class="upload">
          <label for="upload-progress">Upload</label>
          <progress id="upload-progress" max={100} value={percent} aria-valuetext={`${percent} % of ${sending.name}${sending.paused ? ", paused" : ""}`} />
          <span>{percent} %{sending.resumed ? " (resumed)" : ""}</span>
          <button type="button" onClick={togglePause} disabled={!sending.upload || percent === 100}>{sending.paused ? "Resume upload" : "Pause upload"}</button>
        </div>
      )}
      <form onSubmit={useUrl} class="url">
        <label for="video-url">Video URL</label>
        <input id="video-url" type="url" inputMode="url" placeholder="https://…/talk.mp4" value={url} onInput={(e) => setUrl(e.currentTarget.value)} />
        <button type="submit">Use this URL</button>
      </form>
      {problem && <p role="alert" class="problem">{problem}</p>}
    </section>
  );
}
