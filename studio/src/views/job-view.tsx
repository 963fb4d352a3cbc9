import { useEffect, useRef, useState } from "preact/hooks";
import { getJson, plainWords } from "../api/client.ts";
import type { Job, Preset } from "../api/types.ts";
import type { OpenApiDocument } from "../look/schema-fields.ts";
import { Progress } from "./progress.tsx";
import { Result } from "./result.tsx";
import { WordEditor } from "./word-editor.tsx";

interface Props {
  apiKey: string;
  jobId: string;
  presets: readonly Preset[];
  document: OpenApiDocument;
  /** The job's video was uploaded from this page (its Upload bar is done), rather than fetched from a URL. */
  uploaded: boolean;
  onEnded(): void;
  onRendered(jobId: string): void;
}

/** One job: its progress while it runs, then its result and the word editor, or why it failed. */
export function JobView({ apiKey, jobId, presets, document, uploaded, onEnded, onRendered }: Props) {
  const [job, setJob] = useState<Job | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const video = useRef<HTMLVideoElement>(null);
  const load = () => getJson<Job>(`v1/jobs/${encodeURIComponent(jobId)}`, { key: apiKey }).then(setJob, (error: unknown) => setProblem(plainWords(error)));

  useEffect(() => {
    setJob(null);
    setProblem(null);
    void load();
  }, [jobId]);

  const heading = <h2 tabIndex={-1}>Job {jobId}</h2>;
  if (problem) return <>{heading}<p role="alert" class="problem">{problem}</p></>;
  if (!job) return <>{heading}<p>Loading…</p></>;
  const active = !["completed", "failed", "canceled"].includes(job.status);
  return (
    <>
      {heading}
      {active && (
        <Progress apiKey={apiKey} job={job} uploaded={uploaded} onEnded={() => { onEnded(); void load(); }} />
      )}
      {job.status === "failed" && (
        <p role="alert" class="problem">
          The job failed: {job.error?.message ?? "no reason given"} ({job.error?.code ?? "UNKNOWN"}). Nothing was charged for it.
        </p>
      )}
      {job.status === "canceled" && <p role="status">The job was canceled.</p>}
      {job.status === "completed" && (
        <>
          <Result job={job} videoRef={video} />
          {job.subtitles.transcript_url && <WordEditor apiKey={apiKey} job={job} presets={presets} document={document} video={video} onRendered={onRendered} />}
        </>
      )}
    </>
  );
}
