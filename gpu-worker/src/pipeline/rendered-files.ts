// What the render stage leaves in an attempt's scratch folder, as the stages after it see it.

/** A result file written into the attempt's scratch folder under its name. */
export interface LocalResultFile {
  name: string;
  contentType: string;
}

export interface CaptionedVideo {
  framesDrawn: number;
  /** Duration of the longest rendered file, measured like any upload. */
  renderedSeconds: number;
  /** The video (burned, or uncaptioned beside an overlay) first, then the overlay's files if any. */
  files: LocalResultFile[];
  /** The poster and the preview strip. */
  pictures: LocalResultFile[];
}
