import type { ResolvedStyle } from "@caption/shared/style/resolved-style";
import type { LineLook } from "./animations/caption-animation.ts";
import type { CaptionGeometry, Rect } from "./caption-geometry.ts";
import type { CueLayout } from "./caption-layout.ts";

/** A rounded rectangle of a caption's background, drawn at `opacity` times the style's background opacity. */
export interface BackgroundShape {
  rect: Rect;
  radius: number;
  opacity: number;
}

const STILL_LINE: LineLook = { visible: true, opacity: 1, dy: 0 };

/**
 * The background behind a caption with its lines' looks (omitted: all still): one shape per shown line, or one
 * box around them all, or none.
 */
export function backgroundShapes(
  layout: CueLayout,
  lineLooks: readonly LineLook[] | undefined,
  type: ResolvedStyle["background"]["type"],
  geometry: CaptionGeometry,
): BackgroundShape[] {
  const background = geometry.background;
  if (background === null) return [];
  const scale = layout.fontPx / geometry.fontPx;
  const padX = background.padX * scale;
  const padY = background.padY * scale;
  const radius = background.radius * scale;
  const shown = layout.lines
    .map((line, i) => ({ line, look: lineLooks?.[i] ?? STILL_LINE }))
    .filter(({ line, look }) => line.words.length > 0 && look.visible && look.opacity > 0);
  if (shown.length === 0) return [];
  switch (type) {
    case "none":
      return [];
    case "line":
    case "line-rounded":
      return shown.map(({ line, look }) => ({
        rect: { x: line.x - padX, y: line.top + look.dy - padY, width: line.width + 2 * padX, height: layout.lineHeight + 2 * padY },
        radius: type === "line-rounded" ? radius : 0,
        opacity: look.opacity,
      }));
    case "box":
    case "box-rounded": {
      const first = shown[0]!;
      const last = shown.at(-1)!;
      const top = first.line.top + first.look.dy;
      const bottom = last.line.top + last.look.dy + layout.lineHeight;
      return [
        {
          rect: { x: layout.block.x - padX, y: top - padY, width: layout.block.width + 2 * padX, height: bottom - top + 2 * padY },
          radius: type === "box-rounded" ? radius : 0,
          opacity: Math.max(...shown.map((s) => s.look.opacity)),
        },
      ];
    }
  }
}
