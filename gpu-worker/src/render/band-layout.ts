import { EDGE_SPILL, type Edges } from "./caption-geometry.ts";

/** A rectangle of whole pixels (inside the band: relative to its top left corner). */
export interface PixelArea {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The rectangle of the frame that holds every caption: only it is drawn, piped and overlaid. */
export type Band = PixelArea;

/** The smallest area holding both. */
export function enclosing(a: PixelArea, b: PixelArea): PixelArea {
  const [x, y] = [Math.min(a.x, b.x), Math.min(a.y, b.y)];
  return { x, y, width: Math.max(a.x + a.width, b.x + b.width) - x, height: Math.max(a.y + a.height, b.y + b.height) - y };
}

// 4:2:0 chroma pairs rows and columns: the band starts and ends on even ones.
const MIN_SIZE = 2;

/**
 * The smallest rectangle containing every extent, on even rows and columns, inside the frame; a 2x2 square
 * at the top left when there is nothing to show. Sides are even too: an odd frame's last row or column is
 * left out (4:2:0 video cannot be odd-sized anyway).
 */
export function bandFor(extents: readonly Edges[], frame: { width: number; height: number }): Band {
  if (extents.length === 0) return { x: 0, y: 0, width: MIN_SIZE, height: MIN_SIZE };
  const rows = evenSpan(Math.min(...extents.map((e) => e.top)), Math.max(...extents.map((e) => e.bottom)), frame.height);
  const columns = evenSpan(Math.min(...extents.map((e) => e.left)), Math.max(...extents.map((e) => e.right)), frame.width);
  return { x: columns.start, y: rows.start, width: columns.size, height: rows.size };
}

/** [from, to] widened by the spill and rounded out to even, at least 2 long, inside [0, limit] rounded down to even. */
function evenSpan(from: number, to: number, limit: number): { start: number; size: number } {
  const evenLimit = Math.max(MIN_SIZE, Math.floor(limit / 2) * 2);
  let start = Math.max(0, Math.floor((from - EDGE_SPILL) / 2) * 2);
  let end = Math.min(evenLimit, Math.ceil((to + EDGE_SPILL) / 2) * 2);
  if (end - start < MIN_SIZE) {
    start = Math.max(0, Math.min(start, evenLimit - MIN_SIZE));
    end = start + MIN_SIZE;
  }
  return { start, size: end - start };
}
