import type { RefObject } from "preact";
import { useEffect, useMemo, useState } from "preact/hooks";
import { fetchResult, plainWords, postJson } from "../api/client.ts";
import type { Job, Preset, PresetId, QualityReport, RenderRequest, Style, SubmissionResponse, Transcript } from "../api/types.ts";
import { WordList } from "../editor/word-list.tsx";
import { clock, editorWords, requestWords, wordAt, type EditorWord } from "../editor/words.ts";
import { fieldsOf, submissionSchema, type OpenApiDocument } from "../look/schema-fields.ts";
import { StylePanel } from "../look/style-panel.tsx";

interface Props {
  apiKey: string;
  job: Job;
  presets: readonly Preset[];
  document: OpenApiDocument;
  video: RefObject<HTMLVideoElement | null>;
  onRendered(jobId: string): void;
}

const RULE_NAMES: Record<string, string> = {
  max_chars_per_line: "line too long", max_lines: "too many lines", reading_speed: "read too fast", min_duration: "too short on screen",
  max_duration: "too long on screen", min_gap: "too close to the next cue", gap_not_closed: "gap not closed", early_start: "starts before the speech", late_end: "ends after the speech",
};

/** The words with their flags, the cues that break the profile, and Render again with the edits. */
export function WordEditor({ apiKey, job, presets, document, video, onRendered }: Props) {
  const [transcript, setTranscript] = useState<Transcript | null>(null);
  const [report, setReport] = useState<QualityReport | null>(null);
  const [words, setWords] = useState<EditorWord[]>([]);
  const [edited, setEdited] = useState(false);
  const [speaking, setSpeaking] = useState(-1);
  const [preset, setPreset] = useState<PresetId | "">("");
  const [style, setStyle] = useState<Style>({});
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [idempotencyKey] = useState(() => crypto.randomUUID());
  const fields = useMemo(() => fieldsOf(submissionSchema(document).properties?.style ?? {}), [document]);

  useEffect(() => {
    const { transcript_url: transcriptUrl, quality_url: qualityUrl } = job.subtitles;
    if (!transcriptUrl) return;
    Promise.all([fetchResult<Transcript>(transcriptUrl), qualityUrl ? fetchResult<QualityReport>(qualityUrl).catch(() => null) : null]).then(
      ([loaded, quality]) => {
        setTranscript(loaded);
        setReport(quality);
        setWords(editorWords(loaded, quality));
        setEdited(false);
      },
      (error: unknown) => setProblem(plainWords(error)),
    );
  }, [job.id]);

  useEffect(() => {
    const element = video.current;
    if (!element) return;
    const follow = () => setSpeaking(wordAt(words, element.currentTime));
    element.addEventListener("timeupdate", follow);
    element.addEventListener("seeked", follow);
    return () => {
      element.removeEventListener("timeupdate", follow);
      element.removeEventListener("seeked", follow);
    };
  }, [video.current, words]);

  const seek = (seconds: number) => {
    if (video.current) video.current.currentTime = seconds;
    setSpeaking(wordAt(words, seconds));
  };
  const renderAgain = async () => {
    const request: RenderRequest = {
      ...(edited ? { words: requestWords(words) } : {}),
      ...(preset ? { preset } : {}),
      ...(Object.keys(style).length > 0 ? { style } : {}),
    };
    setBusy(true);
    setProblem(null);
    try {
      const created = await postJson<SubmissionResponse>(`v1/jobs/${encodeURIComponent(job.id)}/renders`, { key: apiKey, body: request, headers: { "idempotency-key": idempotencyKey } });
      onRendered(created.id);
    } catch (error) {
      setProblem(plainWords(error));
      setBusy(false);
    }
  };

  if (!transcript) return problem ? <p role="alert" class="problem">The words could not be loaded: {problem}</p> : null;
  const breaking = report?.cues.filter((cue) => cue.breaks.length > 0) ?? [];
  const current = presets.find((candidate) => candidate.id === (preset || transcript.preset));
  return (
    <section aria-labelledby="editor-heading" class="editor">
      <h3 id="editor-heading">Fix the words</h3>
      <p id="word-keys" class="rule">
        Choose a word to play it and edit it. In Word text: Enter saves (spaces make several words), Escape leaves; Alt+← and Alt+→ move its start,
        Alt+Shift+← and Alt+Shift+→ its end, by 0.05 s. Marked words are those the recognizer was unsure of, heard no speech under, or took from the vocabulary.
      </p>
      <WordList words={words} duration={transcript.duration} speaking={speaking} onChange={(next) => { setWords(next); setEdited(true); }} onSeek={seek} />
      <h4>Cues that break the {report?.profile ?? ""} profile</h4>
      {breaking.length === 0 ? <p>None: every cue keeps the profile's rules.</p> : (
        <ul class="cues" aria-label="Cues that break the profile">
          {breaking.map((cue) => (
            <li key={cue.index}>
              <button type="button" onClick={() => seek(cue.start)}>
                Cue {cue.index} at {clock(cue.start)}: {cue.breaks.map((rule) => RULE_NAMES[rule.rule] ?? rule.rule).join(", ")}
              </button>
            </li>
          ))}
        </ul>
      )}
      <div class="field">
        <label for="render-preset">Preset for the new render</label>
        <select id="render-preset" value={preset} onChange={(e) => setPreset(e.currentTarget.value as PresetId | "")}>
          <option value="">the same ({presets.find((candidate) => candidate.id === transcript.preset)?.name ?? transcript.preset})</option>
          {presets.map((candidate) => <option key={candidate.id} value={candidate.id}>{candidate.name}</option>)}
        </select>
      </div>
      <details>
        <summary>Style for the new render</summary>
        <StylePanel idPrefix="render-style" fields={fields} preset={current} style={style} onChange={setStyle} />
      </details>
      <button type="button" class="primary" disabled={busy} onClick={() => void renderAgain()}>Render again</button>
      {problem && <p role="alert" class="problem">{problem}</p>}
    </section>
  );
}
