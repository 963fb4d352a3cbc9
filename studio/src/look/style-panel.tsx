import { useState } from "preact/hooks";
import type { Preset, Style } from "../api/types.ts";
import { parseField, ruleOf, valueAt, withValueAt, type SchemaField } from "./schema-fields.ts";

interface Props {
  fields: readonly SchemaField[];
  preset: Preset | undefined;
  style: Style;
  onChange(style: Style): void;
  /** Distinguishes two panels on one page (ids). */
  idPrefix: string;
}

const idOf = (prefix: string, field: SchemaField) => `${prefix}-${field.path.join("-")}`;
const shown = (value: unknown) => (value === undefined ? "" : String(value));

/**
 * Every style field of the API, showing the preset's value until the person sets one. A value that breaks the
 * field's rule is not sent: the field says the rule instead, and the preview keeps the last good look.
 */
export function StylePanel({ fields, preset, style, onChange, idPrefix }: Props) {
  const [typed, setTyped] = useState<Record<string, string>>({});
  const [problems, setProblems] = useState<Record<string, string>>({});
  const defaults = preset?.defaults as Record<string, unknown> | undefined;

  const commit = (field: SchemaField, raw: string | boolean) => {
    const id = idOf(idPrefix, field);
    const parsed = parseField(field, raw);
    if ("problem" in parsed) {
      setTyped((all) => ({ ...all, [id]: String(raw) }));
      setProblems((all) => ({ ...all, [id]: parsed.problem }));
      return;
    }
    setTyped(({ [id]: _, ...rest }) => rest);
    setProblems(({ [id]: _, ...rest }) => rest);
    const same = valueAt(defaults, field.path) === parsed.value;
    onChange(withValueAt(style as Record<string, unknown>, field.path, same ? undefined : parsed.value) as Style);
  };

  const groups = new Map<string, SchemaField[]>();
  for (const field of fields) {
    const group = field.path.length === 2 ? field.path[0] : "";
    groups.set(group, [...(groups.get(group) ?? []), field]);
  }

  const control = (field: SchemaField) => {
    const id = idOf(idPrefix, field);
    const value = valueAt(style as Record<string, unknown>, field.path) ?? valueAt(defaults, field.path);
    const problem = problems[id];
    const described = problem ? `${id}-problem` : `${id}-rule`;
    const common = { id, "aria-invalid": problem ? ("true" as const) : undefined, "aria-describedby": described };
    let input;
    if (field.kind === "switch") {
      input = <input type="checkbox" {...common} checked={value === true} onChange={(e) => commit(field, e.currentTarget.checked)} />;
    } else if (field.kind === "choice") {
      input = (
        <select {...common} value={shown(value)} onChange={(e) => commit(field, e.currentTarget.value)}>
          {field.choices.map((choice) => <option key={choice} value={String(choice)}>{String(choice)}</option>)}
        </select>
      );
    } else {
      const text = typed[id] ?? shown(value);
      input = field.kind === "number"
        ? <input type="number" step="any" inputMode="decimal" {...common} value={text} onChange={(e) => commit(field, e.currentTarget.value)} />
        : <input type="text" {...common} value={text} onChange={(e) => commit(field, e.currentTarget.value)} />;
    }
    return (
      <div class="field" key={id}>
        <label for={id}>{field.path.length === 2 ? field.label.slice(field.path[0].length + 1) : field.label}</label>
        {input}
        {problem ? <span id={`${id}-problem`} class="problem">{problem}</span> : <span id={`${id}-rule`} class="rule">{ruleOf(field)}</span>}
      </div>
    );
  };

  return (
    <section aria-labelledby={`${idPrefix}-heading`} class="style-panel">
      <h3 id={`${idPrefix}-heading`}>Style</h3>
      {[...groups].map(([group, members]) =>
        group === "" ? members.map(control) : (
          <fieldset key={group}>
            <legend>{group.charAt(0).toUpperCase() + group.slice(1)}</legend>
            {members.map(control)}
          </fieldset>
        ),
      )}
      <button type="button" onClick={() => { setTyped({}); setProblems({}); onChange({}); }}>Reset style</button>
    </section>
  );
}
