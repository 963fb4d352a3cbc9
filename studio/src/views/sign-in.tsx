import { useState } from "preact/hooks";
import { getJson, plainWords } from "../api/client.ts";
import type { Usage } from "../api/types.ts";

interface Props {
  onSignedIn(key: string, usage: Usage): void;
}

/** The API key, checked against the API before it is kept; a wrong or revoked one shows the API's message. */
export function SignIn({ onSignedIn }: Props) {
  const [key, setKey] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    const trimmed = key.trim();
    setBusy(true);
    setProblem(null);
    try {
      onSignedIn(trimmed, await getJson<Usage>("v1/usage", { key: trimmed }));
    } catch (error) {
      setProblem(plainWords(error));
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="sign-in">
      <h1>Caption studio</h1>
      <p>Upload a video, choose how its captions look, fix the words and download the result.</p>
      <form onSubmit={(event) => void submit(event)}>
        <label for="api-key">API key</label>
        <input
          id="api-key"
          type="password"
          autoComplete="off"
          spellcheck={false}
          required
          value={key}
          onInput={(e) => setKey(e.currentTarget.value)}
          aria-describedby="api-key-help"
        />
        <button type="submit" disabled={busy}>Sign in</button>
        {problem && <p role="alert" class="problem">{problem}</p>}
      </form>
      <p id="api-key-help" class="rule">
        The key stays in this tab only. To make one on the machine that runs the service:{" "}
        <code>npm run admin -- keys:create --name me --scopes subtitles:write --credits 600</code>
      </p>
    </main>
  );
}

/** The balance, announced politely when it changes. */
export function Balance({ usage }: { usage: Usage | null }) {
  return (
    <p role="status" class="balance">
      {usage ? `Balance: ${usage.available_seconds} s available` : "Balance: …"}
    </p>
  );
}
