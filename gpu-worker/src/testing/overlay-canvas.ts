import type { MediaInfo } from "../media/media-info.ts";
import type { Band } from "../render/band-layout.ts";

/** ffmpeg's filter laying the band's pictures on a transparent frame of the video's size: what an overlay should show. */
export const transparentCanvas = (media: Pick<MediaInfo, "width" | "height">, band: Band): string => `pad=${media.width}:${media.height}:${band.x}:${band.y}:color=black@0`;
