import { useEffect, useRef, useState } from "preact/hooks";
import { plainWords } from "../api/client.ts";
import type { PresetId, Style } from "../api/types.ts";
import { drawPreview, type Canvas } from "./previews.ts";

interface Props {
  apiKey: string;
  canvas: Canvas;
  preset: PresetId;
  presetName: string;
  style: Style;
}

/** A change settles this long before the preview is asked for: typing a number is one request, not three. */
const SETTLE_MS = 120;

/**
 * The chosen look, large, redrawn after each change. Each redraw is measured from its request to the picture on
 * screen (the `preview-redraw` performance measure; `npm run bench:studio` reads it).
 */
export function LookPreview({ apiKey, canvas, preset, presetName, style }: Props) {
  // The picture on screen and the look it shows (the one asked for may be on its way).
  const [picture, setPicture] = useState<{ url: string; name: string } | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const requested = useRef<string | null>(null);

  useEffect(() => {
    const stop = new AbortController();
    let url: string | null = null;
    const timer = setTimeout(() => {
      setBusy(true);
      const mark = `preview-requested-${performance.now()}`;
      performance.mark(mark);
      drawPreview(apiKey, canvas, { preset, style }, stop.signal).then(
        (blob) => {
          url = URL.createObjectURL(blob);
          requested.current = mark;
          setPicture({ url, name: presetName });
          setProblem(null);
        },
        (error: unknown) => {
          if (!stop.signal.aborted) setProblem(plainWords(error));
        },
      ).finally(() => !stop.signal.aborted && setBusy(false));
    }, SETTLE_MS);
    return () => {
      clearTimeout(timer);
      stop.abort();
      // The picture on screen stays until the next one replaces it; then its URL goes.
      const shown = url;
      if (shown) setTimeout(() => URL.revokeObjectURL(shown), 0);
    };
  }, [apiKey, canvas, preset, presetName, JSON.stringify(style)]);

  const shown = () => {
    if (requested.current) performance.measure("preview-redraw", requested.current);
    requested.current = null;
  };

  return (
    <figure class="look-preview" aria-busy={busy}>
      {picture ? <img src={picture.url} alt={`Preview of ${picture.name} on your video`} width={canvas.width} height={canvas.height} onLoad={shown} /> : <div class="placeholder" />}
      <figcaption>{problem ? <span role="alert" class="problem">The preview could not be drawn: {problem}</span> : busy ? "Drawing…" : `${picture?.name ?? presetName}, as the video will show it`}</figcaption>
    </figure>
  );
}
