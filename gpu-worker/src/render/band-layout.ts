/** The horizontal strip of the frame that holds every caption: only it is drawn, piped and overlaid. */
export interface Band {
  y: number;
  width: number;
  height: number;
}

// Anti-aliased edges spill a pixel past the computed extents.
const EDGE_SPILL = 1;

/**
 * The smallest full-width strip containing every vertical extent, on even rows (4:2:0 chroma pairs rows),
 * inside the frame; a 2-row strip at the top when there is nothing to show.
 */
export function bandFor(extents: readonly { top: number; bottom: number }[], frame: { width: number; height: number }): Band {
  const evenFloor = (v: number) => Math.floor(v / 2) * 2;
  const evenCeil = (v: number) => Math.ceil(v / 2) * 2;
  const minHeight = Math.min(2, frame.height);
  if (extents.length === 0) return { y: 0, width: frame.width, height: minHeight };
  const top = Math.max(0, evenFloor(Math.min(...extents.map((e) => e.top)) - EDGE_SPILL));
  const bottom = Math.min(frame.height, evenCeil(Math.max(...extents.map((e) => e.bottom)) + EDGE_SPILL));
  const height = Math.max(minHeight, bottom - top);
  return { y: Math.min(top, frame.height - height), width: frame.width, height };
}
