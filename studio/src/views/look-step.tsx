import { useMemo, useState } from "preact/hooks";
import { plainWords, postJson } from "../api/client.ts";
import type { Preset, PresetId, Style, SubmissionRequest, SubmissionResponse } from "../api/types.ts";
import { JobOptionsPanel, NO_OPTIONS, optionFields, optionProblems, type JobOptions } from "../look/job-options.tsx";
import { LookPreview } from "../look/look-preview.tsx";
import { PresetGallery } from "../look/preset-gallery.tsx";
import { fieldsOf, submissionSchema, type OpenApiDocument } from "../look/schema-fields.ts";
import { StylePanel } from "../look/style-panel.tsx";
import type { Source } from "./source-step.tsx";

interface Props {
  apiKey: string;
  source: Source;
  presets: readonly Preset[];
  document: OpenApiDocument;
  onSubmitted(jobId: string): void;
}

/** Choose the look on the person's own video, set the options, and submit the job. */
export function LookStep({ apiKey, source, presets, document, onSubmitted }: Props) {
  const [preset, setPreset] = useState<PresetId>(presets[0]?.id ?? "classic");
  const [style, setStyle] = useState<Style>({});
  const [options, setOptions] = useState<JobOptions>(NO_OPTIONS);
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  // One key per submission the person means: a retry of a lost answer is the same job, not a second one.
  const [idempotencyKey] = useState(() => crypto.randomUUID());
  const submission = useMemo(() => submissionSchema(document), [document]);
  const fields = useMemo(() => fieldsOf(submission.properties?.style ?? {}), [submission]);
  const chosen = presets.find((candidate) => candidate.id === preset);

  const captionIt = async () => {
    if (Object.keys(optionProblems(options, submission)).length > 0) return setProblem("Some options break their rules: see the fields marked above");
    const request: SubmissionRequest = {
      ...(source.kind === "upload" ? { upload_id: source.uploadId } : { video_url: source.url }),
      preset,
      ...(Object.keys(style).length > 0 ? { style } : {}),
      ...optionFields(options),
    };
    setBusy(true);
    setProblem(null);
    try {
      const created = await postJson<SubmissionResponse>("v1/subtitles", { key: apiKey, body: request, headers: { "idempotency-key": idempotencyKey } });
      onSubmitted(created.id);
    } catch (error) {
      setProblem(plainWords(error));
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="look-heading" class="look">
      <h2 id="look-heading" tabIndex={-1}>Choose the look</h2>
      <p class="rule">{source.kind === "upload" ? `Every preset on a frame of ${source.name}.` : "Every preset on a checkerboard: the service reads the video from its URL when the job starts."}</p>
      <div class="look-grid">
        <PresetGallery apiKey={apiKey} presets={presets} canvas={source.canvas} selected={preset} onSelect={setPreset} />
        <div class="look-side">
          <LookPreview apiKey={apiKey} canvas={source.canvas} preset={preset} presetName={chosen?.name ?? preset} style={style} />
          <StylePanel idPrefix="style" fields={fields} preset={chosen} style={style} onChange={setStyle} />
          <JobOptionsPanel submission={submission} options={options} onChange={setOptions} />
          <button type="button" class="primary" disabled={busy} onClick={() => void captionIt()}>Caption it</button>
          {problem && <p role="alert" class="problem">{problem}</p>}
        </div>
      </div>
    </section>
  );
}
