import stylistic from "@stylistic/eslint-plugin";
import tseslint from "typescript-eslint";
import { boundaries } from "./eslint.boundaries.js";

export default tseslint.config(
  { ignores: ["**/node_modules/**", ".tools/**", ".data/**", ".tmp/**", "bench/results/**", "studio/dist/**", "docs/**", "eslint.config.js", "eslint.boundaries.js", ".dependency-cruiser.mjs"] },
  ...tseslint.configs.recommended,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": ["error", { checksVoidReturn: { arguments: false } }],
      "@typescript-eslint/switch-exhaustiveness-check": ["error", { considerDefaultExhaustiveForUnions: true }],
      "@typescript-eslint/consistent-type-imports": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  {
    // node:test's test()/describe() promises are awaited by the runner itself.
    files: ["**/*.test.ts", "**/testing/**", "test/src/**"],
    rules: {
      "@typescript-eslint/no-floating-promises": [
        "error",
        { allowForKnownSafeCalls: [{ from: "package", package: "node:test", name: ["test", "describe", "it", "suite", "before", "after"] }] },
      ],
      "@typescript-eslint/no-explicit-any": "off",
    },
  },
  {
    // Small files and short lines (docs/development.md "How we like the code"). Blank lines and comments do not
    // count towards a file's 250 lines: a comment that says why is never the thing to cut. Lines holding a string,
    // template literal, regular expression or URL may run longer than 160 rather than break a message apart.
    files: ["**/*.ts", "**/*.tsx"],
    plugins: { "@stylistic": stylistic },
    rules: {
      "max-lines": ["error", { max: 250, skipBlankLines: true, skipComments: true }],
      "@stylistic/max-len": ["error", { code: 160, tabWidth: 2, ignoreUrls: true, ignoreStrings: true, ignoreTemplateLiterals: true, ignoreRegExpLiterals: true }],
    },
  },
  {
    // Migrations are written once and never edited; their length is their history.
    files: ["shared/src/db/migrations/**"],
    rules: { "max-lines": "off" },
  },
  ...boundaries,
);
