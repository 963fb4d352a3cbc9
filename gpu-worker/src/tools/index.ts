// Tools as other packages see them: the previews the README's contact sheet is made of.
export { sheetPreview } from "./presets-sheet.ts";
