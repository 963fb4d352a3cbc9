import { withEmbeddedService } from "./tools/embedded-service.ts";
const lines: string[] = [];
await withEmbeddedService(async ({ url, apiKey }) => {
  for (let i = 0; i < 30; i++) {
    const t = performance.now();
    const r = await fetch(`${url}/v1/previews`, { method: "POST", headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" }, body: JSON.stringify({ preset: "classic", width: 1080, height: 1920, format: "png" }) });
    await r.arrayBuffer();
    console.log(r.status, (performance.now() - t).toFixed(0));
  }
}, (line) => { if (line.includes("preview")) lines.push(line); });
for (const l of lines.slice(-6)) { const e = JSON.parse(l); console.log(e.msg, e.ms, e.time); }
