import { useState } from "preact/hooks";
import type { Preset } from "../api/types.ts";
import type { OpenApiDocument } from "../look/schema-fields.ts";
import { LookStep } from "./look-step.tsx";
import { SourceStep, type Source } from "./source-step.tsx";

interface Props {
  apiKey: string;
  presets: readonly Preset[];
  document: OpenApiDocument;
  onSubmitted(jobId: string, source: Source["kind"]): void;
}

/** A new job: the video first, then its look. */
export function NewCaptions({ apiKey, presets, document, onSubmitted }: Props) {
  const [source, setSource] = useState<Source | null>(null);
  return (
    <>
      <h2 tabIndex={-1}>New captions</h2>
      <SourceStep apiKey={apiKey} onReady={setSource} />
      {source && <LookStep apiKey={apiKey} source={source} presets={presets} document={document} onSubmitted={(id) => onSubmitted(id, source.kind)} />}
    </>
  );
}
