// Speech recognition as other packages see it: the engines, transcription, and where models live.
export type { SpeechEngine } from "./speech-engine.ts";
export { createPocketsphinxEngine } from "./pocketsphinx-engine.ts";
export { loadSherpaEngine } from "./sherpa/sherpa-engine.ts";
export { findInstalledModels } from "./sherpa/model-files.ts";
export { loadSpeechEngine } from "./engine-registry.ts";
export { transcribeAudio } from "./transcribe-audio.ts";
export { modelFolder } from "./model-folder.ts";
export { DEFAULT_SILERO_VAD_MODEL } from "./silero-vad-model.ts";
export { defaultPhoneticLexicon } from "./vocabulary/phonetic-lexicon.ts";
