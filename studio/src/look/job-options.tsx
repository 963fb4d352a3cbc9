import type { JsonSchema } from "./schema-fields.ts";

/** What a submission says besides its source, preset and style. */
export interface JobOptions {
  language: string;
  profile: string;
  vocabulary: string;
  outputKind: string;
}

export const NO_OPTIONS: JobOptions = { language: "", profile: "", vocabulary: "", outputKind: "" };

const choices = (schema: JsonSchema | undefined) => schema?.anyOf?.map((option) => String(option.const)) ?? [];
const terms = (text: string) => text.split("\n").map((term) => term.trim()).filter((term) => term.length > 0);

/** The options' problems, by the submission schema's rules: empty when they can be sent. */
export function optionProblems(options: JobOptions, submission: JsonSchema): Partial<Record<keyof JobOptions, string>> {
  const problems: Partial<Record<keyof JobOptions, string>> = {};
  const language = submission.properties?.language;
  if (options.language !== "" && language?.pattern && !new RegExp(language.pattern, "u").test(options.language)) {
    problems.language = "Language must be a code of 2 or 3 small letters, such as en or fr; empty: detected";
  }
  const vocabulary = submission.properties?.vocabulary;
  const list = terms(options.vocabulary);
  const item = vocabulary?.items;
  if (vocabulary?.maxItems !== undefined && list.length > vocabulary.maxItems) problems.vocabulary = `Vocabulary holds at most ${vocabulary.maxItems} terms`;
  const long = list.find((term) => item?.maxLength !== undefined && term.length > item.maxLength);
  if (long) problems.vocabulary = `Each vocabulary term is at most ${item?.maxLength} characters: ${long.slice(0, 20)}…`;
  return problems;
}

/** The submission's fields for the options (omitted when left as the service's default). */
export function optionFields(options: JobOptions) {
  const vocabulary = terms(options.vocabulary);
  return {
    ...(options.language ? { language: options.language } : {}),
    ...(options.profile ? { subtitles: { profile: options.profile as "netflix" | "bbc" | "vertical" } } : {}),
    ...(vocabulary.length > 0 ? { vocabulary } : {}),
    ...(options.outputKind ? { output: { kind: options.outputKind as "burned" | "overlay" | "both" } } : {}),
  };
}

interface Props {
  submission: JsonSchema;
  options: JobOptions;
  onChange(options: JobOptions): void;
}

/** Language, subtitle profile, vocabulary and output kinds, with the choices the API's document lists. */
export function JobOptionsPanel({ submission, options, onChange }: Props) {
  const problems = optionProblems(options, submission);
  const set = (name: keyof JobOptions) => (event: { currentTarget: { value: string } }) => onChange({ ...options, [name]: event.currentTarget.value });
  const describe = (name: keyof JobOptions, rule: string) =>
    problems[name] ? <span id={`option-${name}-note`} class="problem">{problems[name]}</span> : <span id={`option-${name}-note`} class="rule">{rule}</span>;
  const invalid = (name: keyof JobOptions) => ({ "aria-invalid": problems[name] ? ("true" as const) : undefined, "aria-describedby": `option-${name}-note` });
  return (
    <section aria-labelledby="options-heading" class="options">
      <h3 id="options-heading">Options</h3>
      <div class="field">
        <label for="option-language">Language</label>
        <input id="option-language" type="text" value={options.language} onChange={set("language")} {...invalid("language")} />
        {describe("language", "a code such as en or fr; empty: detected from the speech")}
      </div>
      <div class="field">
        <label for="option-profile">Subtitle profile</label>
        <select id="option-profile" value={options.profile} onChange={set("profile")} {...invalid("profile")}>
          <option value="">the service's default</option>
          {choices(submission.properties?.subtitles?.properties?.profile).map((id) => <option key={id} value={id}>{id}</option>)}
        </select>
        {describe("profile", "the rules the subtitle files are laid out by")}
      </div>
      <div class="field">
        <label for="option-vocabulary">Vocabulary</label>
        <textarea id="option-vocabulary" rows={3} value={options.vocabulary} onChange={set("vocabulary")} {...invalid("vocabulary")} />
        {describe("vocabulary", "names and words the speech is likely to hold, one a line")}
      </div>
      <div class="field">
        <label for="option-output">Output</label>
        <select id="option-output" value={options.outputKind} onChange={set("outputKind")} {...invalid("outputKind")}>
          <option value="">burned (the default)</option>
          {choices(submission.properties?.output?.properties?.kind).filter((kind) => kind !== "burned").map((kind) => <option key={kind} value={kind}>{kind}</option>)}
        </select>
        {describe("outputKind", "burned: captions in the video; overlay: captions alone with transparency, for an editor; both")}
      </div>
    </section>
  );
}
