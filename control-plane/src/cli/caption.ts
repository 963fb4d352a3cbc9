// `npm run caption -- <file or https URL> [--preset P] [--style JSON] [--language xx] [--out DIR] [--json]`
// (docs/caption-command.md). A V8 code cache first: the command's start-up is part of what a person waits for,
// and a cached compile of its modules roughly halves their load time; then the command itself.
import { enableCompileCache } from "node:module";

enableCompileCache();
await import("./caption-main.ts");
