import { useEffect, useState } from "preact/hooks";
import { ApiError, getJson, plainWords } from "./api/client.ts";
import type { Preset, Usage } from "./api/types.ts";
import type { OpenApiDocument } from "./look/schema-fields.ts";
import { forgetKey, storedKey, storeKey } from "./session.ts";
import { JobView } from "./views/job-view.tsx";
import { JobsTable } from "./views/jobs-table.tsx";
import { NewCaptions } from "./views/new-captions.tsx";
import { Balance, SignIn } from "./views/sign-in.tsx";

type Route = { view: "new" } | { view: "jobs" } | { view: "job"; id: string };

function routeOf(hash: string): Route {
  const job = /^#\/job\/(job_[0-9A-Za-z_]{1,64})$/u.exec(hash);
  if (job) return { view: "job", id: job[1]! };
  return hash === "#/jobs" ? { view: "jobs" } : { view: "new" };
}

/** The studio: sign in, then new captions, a job, or the jobs table, by the URL's fragment. */
export function App() {
  const [key, setKey] = useState(storedKey);
  const [usage, setUsage] = useState<Usage | null>(null);
  const [route, setRoute] = useState(() => routeOf(location.hash));
  const [catalog, setCatalog] = useState<{ presets: Preset[]; document: OpenApiDocument } | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  // Jobs whose video this tab uploaded: their Upload bar is done rather than not needed.
  const [uploaded] = useState(() => new Set<string>());

  useEffect(() => {
    const follow = () => {
      setRoute(routeOf(location.hash));
      // Keyboard and screen-reader users land on the new view's heading.
      requestAnimationFrame(() => document.querySelector<HTMLElement>("main h2")?.focus());
    };
    addEventListener("hashchange", follow);
    return () => removeEventListener("hashchange", follow);
  }, []);

  useEffect(() => {
    Promise.all([getJson<{ presets: Preset[] }>("v1/presets"), getJson<OpenApiDocument>("v1/openapi.json")]).then(
      ([{ presets }, document]) => setCatalog({ presets, document }),
      (error: unknown) => setProblem(plainWords(error)),
    );
  }, []);

  // The first view that takes input is on screen: `npm run bench:studio` times the page by this mark.
  useEffect(() => {
    if ((!key || catalog) && performance.getEntriesByName("studio-interactive").length === 0) performance.mark("studio-interactive");
  }, [key, catalog]);

  const refreshUsage = () => {
    if (!key) return;
    getJson<Usage>("v1/usage", { key }).then(setUsage, (error: unknown) => {
      // A key revoked meanwhile: back to signing in, with the API's word for it.
      if (error instanceof ApiError && error.status === 401) signOut();
    });
  };
  useEffect(refreshUsage, [key]);

  const signOut = () => {
    forgetKey();
    setKey(null);
    setUsage(null);
  };

  if (!key) return <SignIn onSignedIn={(signedIn, known) => { storeKey(signedIn); setKey(signedIn); setUsage(known); }} />;
  const go = (hash: string) => {
    location.hash = hash;
  };
  return (
    <>
      <header class="top">
        <span class="brand">Caption studio</span>
        <nav aria-label="Studio">
          <a href="#/new" aria-current={route.view === "new" ? "page" : undefined}>New captions</a>
          <a href="#/jobs" aria-current={route.view === "jobs" ? "page" : undefined}>Jobs</a>
        </nav>
        <Balance usage={usage} />
        <button type="button" onClick={signOut}>Sign out</button>
      </header>
      <main>
        {problem && <p role="alert" class="problem">The service's presets could not be read: {problem}</p>}
        {!catalog ? <p>Loading…</p> : route.view === "jobs" ? (
          <JobsTable apiKey={key} presets={catalog.presets} />
        ) : route.view === "job" ? (
          <JobView
            apiKey={key}
            jobId={route.id}
            presets={catalog.presets}
            document={catalog.document}
            uploaded={uploaded.has(route.id)}
            onEnded={refreshUsage}
            onRendered={(id) => go(`#/job/${id}`)}
          />
        ) : (
          <NewCaptions
            apiKey={key}
            presets={catalog.presets}
            document={catalog.document}
            onSubmitted={(id, source) => {
              if (source === "upload") uploaded.add(id);
              refreshUsage();
              go(`#/job/${id}`);
            }}
          />
        )}
      </main>
    </>
  );
}
