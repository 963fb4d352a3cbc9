import { decodePcm16kMono } from "./src/media/audio-pcm.ts";
import { createPocketsphinxEngine } from "./src/asr/pocketsphinx-engine.ts";
import { composeSpeech } from "./src/testing/speech-fixtures.ts";
const TERMS = ["Kubernetes","Grafana","Siobhan","Tailscale","Okonkwo","Supabase","Zhang Wei","Figma","Nguyen","Vercel","Kowalczyk","Duolingo","Svelte","Nakamura","Xiaomi","Terraform","Anselmo","Postgres","Ljubljana","Oaxaca"];
const texts = ["The prototype stores its data in Supabase for now."];
const vocab = process.argv.slice(2).length ? process.argv.slice(2) : TERMS;
for (const text of texts) {
  const fx = await composeSpeech([{ text, silenceBefore: 0.3 }]);
  const chunks: Float32Array[] = [];
  for await (const c of decodePcm16kMono(fx.path)) chunks.push(c);
  const audio = new Float32Array(chunks.reduce((n, c) => n + c.length, 0)); let o = 0; for (const c of chunks) { audio.set(c, o); o += c.length; }
  const engine = createPocketsphinxEngine();
  try {
    console.log((await engine.transcribe({ start: 0, samples: audio }, { language: "en", signal: new AbortController().signal, vocabulary: vocab })).map((w) => w.text).join(" "));
  } catch (e) { console.log("ERR", (e as Error).message); }
  await engine.close(); await fx.dispose();
}
