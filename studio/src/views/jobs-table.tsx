import { useEffect, useState } from "preact/hooks";
import { getJson, plainWords } from "../api/client.ts";
import type { JobList, Preset } from "../api/types.ts";

interface Props {
  apiKey: string;
  presets: readonly Preset[];
}

const PAGE = 10;

/** The account's recent jobs, newest first, a page at a time by the API's cursor. */
export function JobsTable({ apiKey, presets }: Props) {
  // The cursors of the pages shown so far: the first page has none.
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const [page, setPage] = useState<JobList | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const cursor = cursors.at(-1) ?? null;

  useEffect(() => {
    setPage(null);
    const query = `v1/jobs?limit=${PAGE}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
    getJson<JobList>(query, { key: apiKey }).then(setPage, (error: unknown) => setProblem(plainWords(error)));
  }, [apiKey, cursor]);

  const name = (id: string) => presets.find((preset) => preset.id === id)?.name ?? id;
  return (
    <>
      <h2 tabIndex={-1}>Jobs</h2>
      {problem && <p role="alert" class="problem">{problem}</p>}
      <table aria-label="Jobs" class="jobs" aria-busy={page === null}>
        <thead>
          <tr><th scope="col">Job</th><th scope="col">Status</th><th scope="col">Preset</th><th scope="col">Created</th><th scope="col">Length</th><th scope="col">Billed</th></tr>
        </thead>
        <tbody>
          {page?.jobs.map((job) => (
            <tr key={job.id}>
              <td><a href={`#/job/${job.id}`}>{job.id}</a>{job.source_job_id && <span class="rule"> (rendered again)</span>}</td>
              <td>{job.status}</td>
              <td>{name(job.preset)}</td>
              <td><time dateTime={job.created_at}>{new Date(job.created_at).toLocaleString()}</time></td>
              <td>{job.duration_seconds === null ? "—" : `${job.duration_seconds.toFixed(1)} s`}</td>
              <td>{job.billed_seconds} s</td>
            </tr>
          ))}
        </tbody>
      </table>
      {page && page.jobs.length === 0 && <p>No jobs yet.</p>}
      <div class="pager">
        <button type="button" disabled={cursors.length === 1} onClick={() => setCursors(cursors.slice(0, -1))}>Newer jobs</button>
        <button type="button" disabled={!page?.next_cursor} onClick={() => page?.next_cursor && setCursors([...cursors, page.next_cursor])}>Older jobs</button>
      </div>
    </>
  );
}
