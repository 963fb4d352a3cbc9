import { useEffect, useState } from "preact/hooks";
import { plainWords } from "../api/client.ts";
import type { Preset, PresetId } from "../api/types.ts";
import { drawPreview, type Canvas } from "./previews.ts";

interface Props {
  apiKey: string;
  presets: readonly Preset[];
  canvas: Canvas;
  selected: PresetId;
  onSelect(preset: PresetId): void;
}

/** Previews drawn at once: a worker draws two at a time. */
const AT_ONCE = 2;

/** The 16 presets as a radio group, each shown on the person's own video. */
export function PresetGallery({ apiKey, presets, canvas, selected, onSelect }: Props) {
  const [pictures, setPictures] = useState<Record<string, string>>({});
  const [problem, setProblem] = useState<string | null>(null);

  useEffect(() => {
    const stop = new AbortController();
    const urls: string[] = [];
    const queue = [...presets];
    setPictures({});
    setProblem(null);
    const next = async (): Promise<void> => {
      for (let preset = queue.shift(); preset && !stop.signal.aborted; preset = queue.shift()) {
        const blob = await drawPreview(apiKey, canvas, { preset: preset.id }, stop.signal);
        const url = URL.createObjectURL(blob);
        urls.push(url);
        const id = preset.id;
        setPictures((shown) => ({ ...shown, [id]: url }));
      }
    };
    Promise.all(Array.from({ length: AT_ONCE }, next)).catch((error: unknown) => {
      if (!stop.signal.aborted) setProblem(plainWords(error));
    });
    return () => {
      stop.abort();
      urls.forEach((url) => URL.revokeObjectURL(url));
    };
  }, [apiKey, presets, canvas]);

  return (
    <section aria-labelledby="gallery-heading">
      <h3 id="gallery-heading">Preset</h3>
      {problem && <p role="alert" class="problem">The previews could not be drawn: {problem}</p>}
      <div role="radiogroup" aria-labelledby="gallery-heading" class="gallery">
        {presets.map((preset) => (
          <label key={preset.id} class={preset.id === selected ? "tile chosen" : "tile"}>
            <input type="radio" name="preset" value={preset.id} checked={preset.id === selected} onChange={() => onSelect(preset.id)} />
            {pictures[preset.id] ? <img src={pictures[preset.id]} alt="" width={canvas.width} height={canvas.height} /> : <span class="placeholder" aria-hidden="true" />}
            <span class="tile-name">{preset.name}</span>
          </label>
        ))}
      </div>
    </section>
  );
}
