// What a render request's body weighs when it carries the most words the API accepts (20 000) of real
// text: the measure the render body limit is set from (`npm run bench:render-body`, and the test that
// keeps the limit above it). Words are taken in turn from speech-like sentences of several scripts, so
// the sizes hold for ASCII, accented Latin, Cyrillic, Greek, Arabic and CJK words alike.

/** Sentences as a speech engine would split them into words, one string per language. */
const SENTENCES: Record<string, string> = {
  english: "so what we are going to do today is take the recording from yesterday's meeting and turn every single word into captions that people can actually read on their phones",
  german: "die Geschwindigkeitsbegrenzung auf der Autobahn wurde nach langer Diskussion im Verkehrsministerium schließlich für alle Fahrzeuge gleichermaßen eingeführt",
  vietnamese: "chúng tôi đã nghiên cứu những phương pháp mới để hướng dẫn người học tiếng Việt một cách hiệu quả nhất",
  russian: "мы собираемся рассказать вам о самых интересных достопримечательностях нашего прекрасного старинного города",
  greek: "η συνάντηση της επιτροπής πραγματοποιήθηκε χθες το απόγευμα στην αίθουσα του δημαρχείου",
  arabic: "سوف نتحدث اليوم عن أهمية التعليم المستمر في حياة الإنسان المعاصر والمجتمعات الحديثة",
  // CJK transcripts come as a word or a few characters at a time.
  chinese: "我们 今天 要 讨论 的 是 如何 把 会议 录音 转换 成 每个 人 都 能 看懂 的 字幕",
  japanese: "今日は 皆さんに 新しい 字幕の 作り方を ご紹介 したいと 思います",
};

const LANGUAGES = Object.keys(SENTENCES);

export type BodyFormat = "compact" | "ascii-escaped" | "pretty-ascii-escaped";
const BODY_FORMATS: readonly BodyFormat[] = ["compact", "ascii-escaped", "pretty-ascii-escaped"];

export interface RenderBodyOptions {
  language: string;
  words: number;
  /** The video's length in seconds the words spread over. */
  seconds: number;
  format: BodyFormat;
}

/**
 * A render request body of `words` words of `language`, times as a client's floating-point arithmetic
 * leaves them (sums of steps, so up to 17 significant digits, e.g. 0.30000000000000004), written as
 * `format` says: plain UTF-8, every non-ASCII character as a `\uXXXX` escape (as some clients send
 * all JSON), or that indented by two spaces.
 */
export function realisticRenderBody(options: RenderBodyOptions): string {
  const vocabulary = (SENTENCES[options.language] ?? "").split(" ");
  if (vocabulary.length === 0 || vocabulary[0] === "") throw new Error(`no sentences for ${options.language}`);
  const step = options.seconds / options.words;
  const words: { text: string; start: number; end: number }[] = [];
  let at = 0;
  for (let i = 0; i < options.words; i += 1) {
    const start = at;
    at += step;
    words.push({ text: vocabulary[i % vocabulary.length] ?? "", start, end: Math.min(start + step * 0.9, options.seconds) });
  }
  const body = { preset: "karaoke", words };
  const json = options.format === "pretty-ascii-escaped" ? JSON.stringify(body, null, 2) : JSON.stringify(body);
  return options.format === "compact" ? json : escapeNonAscii(json);
}

function escapeNonAscii(json: string): string {
  return json.replace(/[^\x00-\x7f]/gu, (c) => {
    const units: string[] = [];
    for (let i = 0; i < c.length; i += 1) units.push(`\\u${c.charCodeAt(i).toString(16).padStart(4, "0")}`);
    return units.join("");
  });
}

export interface MeasuredBody {
  language: string;
  format: BodyFormat;
  bytes: number;
}

/** Every language in every format, heaviest first. */
export function measureRenderBodies(words: number, seconds: number): MeasuredBody[] {
  const sizes: MeasuredBody[] = [];
  for (const language of LANGUAGES) {
    for (const format of BODY_FORMATS) {
      sizes.push({ language, format, bytes: Buffer.byteLength(realisticRenderBody({ language, words, seconds, format })) });
    }
  }
  return sizes.sort((a, b) => b.bytes - a.bytes);
}
