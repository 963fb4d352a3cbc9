import { useEffect, useState } from "preact/hooks";
import { plainWords, postJson } from "../api/client.ts";
import { followJob } from "../api/events.ts";
import type { Job, JobEvent } from "../api/types.ts";
import { stageBars } from "./stages.ts";

interface Props {
  apiKey: string;
  job: Job;
  uploaded: boolean;
  /** The job reached a terminal state. */
  onEnded(): void;
}

/** The job's stages as it goes, from its event stream; Cancel job stops it. */
export function Progress({ apiKey, job, uploaded, onEnded }: Props) {
  const [events, setEvents] = useState<JobEvent[]>([]);
  const [problem, setProblem] = useState<string | null>(null);
  const [canceling, setCanceling] = useState(false);

  useEffect(() => {
    const stop = new AbortController();
    setEvents([]);
    followJob(apiKey, job.id, (event) => setEvents((seen) => [...seen, event]), stop.signal).then(
      () => onEnded(),
      (error: unknown) => !stop.signal.aborted && setProblem(plainWords(error)),
    );
    return () => stop.abort();
  }, [apiKey, job.id]);

  const cancel = async () => {
    setCanceling(true);
    try {
      await postJson(`v1/jobs/${encodeURIComponent(job.id)}/cancel`, { key: apiKey });
    } catch (error) {
      setProblem(plainWords(error));
      setCanceling(false);
    }
  };

  const bars = stageBars(events, { uploaded, render: job.source_job_id !== null });
  const status = events.at(-1)?.status ?? job.status;
  return (
    <section aria-labelledby="progress-heading" class="progress">
      <h3 id="progress-heading">Progress: {status}</h3>
      {bars.map((bar) => (
        <div class="stage" key={bar.name}>
          <label for={`stage-${bar.name}`}>{bar.name}</label>
          <progress id={`stage-${bar.name}`} max={100} value={bar.percent} aria-valuetext={bar.text} />
          <span aria-hidden="true">{bar.text}</span>
        </div>
      ))}
      <button type="button" onClick={() => void cancel()} disabled={canceling}>Cancel job</button>
      {problem && <p role="alert" class="problem">{problem}</p>}
    </section>
  );
}
