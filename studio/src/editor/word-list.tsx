import { useLayoutEffect, useRef, useState } from "preact/hooks";
import { clock, insertAfter, mergeWithNext, NUDGE_SECONDS, nudge, removeWord, replaceText, splitWord, type EditorWord, type WordFlag } from "./words.ts";

interface Props {
  words: readonly EditorWord[];
  duration: number;
  /** The word being spoken, highlighted. */
  speaking: number;
  onChange(words: EditorWord[]): void;
  onSeek(seconds: number): void;
}

const FLAG_NAMES: Record<WordFlag, string> = { low_confidence: "unsure", no_speech: "no speech heard", vocabulary: "vocabulary" };

/**
 * The transcript as a list of words with their times. Activating a word (click or Enter) seeks the video to it and
 * opens its Word text field: Enter saves (spaces make several words), Escape leaves it, Alt+←/→ move its start and
 * Alt+Shift+←/→ its end by 0.05 s; the buttons beside it delete, insert, split and merge.
 */
export function WordList({ words, duration, speaking, onChange, onSeek }: Props) {
  const [editing, setEditing] = useState<number | null>(null);
  const [draft, setDraft] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  const field = useRef<HTMLInputElement>(null);
  const focusWord = useRef<number | null>(null);

  // Focus moves with the edit, in the same frame: into the field when it opens, back to the word when it closes.
  useLayoutEffect(() => field.current?.focus(), [editing]);
  useLayoutEffect(() => {
    if (focusWord.current === null) return;
    document.getElementById(`word-${focusWord.current}`)?.focus();
    focusWord.current = null;
  });

  const open = (i: number) => {
    onSeek(words[i]!.start);
    setEditing(i);
    setDraft(words[i]!.text);
    setProblem(null);
  };
  const close = (i: number) => {
    setEditing(null);
    focusWord.current = Math.min(i, words.length - 1);
  };
  const apply = (next: EditorWord[], i: number, stay: boolean) => {
    onChange(next);
    // A nudge keeps the field open with what is typed in it.
    if (stay) return;
    setEditing(null);
    focusWord.current = Math.max(0, Math.min(i, next.length - 1));
  };
  const save = (i: number) => {
    const next = replaceText(words, i, draft);
    if ("problem" in next) return setProblem(next.problem);
    apply(next, i, false);
  };
  const keys = (i: number) => (event: KeyboardEvent) => {
    if (event.key === "Enter") {
      event.preventDefault();
      save(i);
    } else if (event.key === "Escape") {
      event.preventDefault();
      close(i);
    } else if (event.altKey && (event.key === "ArrowLeft" || event.key === "ArrowRight")) {
      event.preventDefault();
      const delta = event.key === "ArrowLeft" ? -NUDGE_SECONDS : NUDGE_SECONDS;
      apply(nudge(words, i, event.shiftKey ? "end" : "start", delta, duration), i, true);
    }
  };

  return (
    <ol aria-label="Transcript" class="words">
      {words.map((word, i) => (
        <li key={i} class={i === speaking ? "word speaking" : "word"} aria-current={i === speaking ? "true" : undefined}>
          {editing === i ? (
            <div class="word-edit">
              <input ref={field} type="text" aria-label="Word text" value={draft} onInput={(e) => setDraft(e.currentTarget.value)} onKeyDown={keys(i)} aria-describedby="word-keys" />
              <span class="time">{clock(word.start)}–{clock(word.end)}</span>
              <button type="button" onClick={() => save(i)}>Save word</button>
              <button type="button" onClick={() => apply(removeWord(words, i), i, false)}>Delete word</button>
              <button type="button" onClick={() => apply(insertAfter(words, i, "word", duration), i + 1, false)}>Insert word after</button>
              <button type="button" onClick={() => apply(splitWord(words, i), i, false)}>Split word</button>
              <button type="button" onClick={() => apply(mergeWithNext(words, i), i, false)} disabled={i === words.length - 1}>Merge with next word</button>
              {problem && <span role="alert" class="problem">{problem}</span>}
            </div>
          ) : (
            <button type="button" id={`word-${i}`} class="word-button" onClick={() => open(i)}>
              {word.text}
              <span class="time"> {clock(word.start)}</span>
              {word.flags.map((flag) => <span key={flag} class={`flag ${flag}`}> ({FLAG_NAMES[flag]})</span>)}
            </button>
          )}
        </li>
      ))}
    </ol>
  );
}
