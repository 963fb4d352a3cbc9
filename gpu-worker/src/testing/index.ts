// Media test support other packages use: generated speech videos, hostile media, canaries, frame and
// process inspection, word error rate.
export { makeSpeechVideo, makeNonVideoFile, type GeneratedMedia, type SpeechVideoOptions } from "./speech-video.ts";
export { accessTimeCanary, accessTimesWork, fifoCanary, type Canary } from "./canary.ts";
export { dashManifest, ffconcatScript, hlsPlaylist, truncateAfterIndex, understateMp4Duration } from "./hostile-media.ts";
export { descendantProcesses, isRunning, type ProcessInfo } from "./process-tree.ts";
export { spokenPrefixWordErrorRate, wordErrorRate } from "./word-error-rate.ts";
export { brightPixels, brightRows, grayFrame, type GrayFrame } from "./gray-frame.ts";
export { parseWebVtt, type ParsedVttCue } from "./webvtt.ts";
export { composeSpeech, type SpeechFixture } from "./speech-fixtures.ts";
// The hand-weighted SenseVoice model and the speech with marker tones it hears (the images check bakes one in).
export { markedSpeech, type MarkedSpeech } from "./marked-speech.ts";
export { kaldiMelBinCentreHz, type Tone } from "./tones.ts";
export { writeTinySenseVoiceModel, type TinySenseVoiceToken } from "./tiny-sense-voice-model.ts";
