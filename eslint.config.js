import tseslint from "typescript-eslint";
import { boundaries } from "./eslint.boundaries.js";

export default tseslint.config(
  { ignores: ["**/node_modules/**", ".tools/**", ".data/**", ".tmp/**", "bench/results/**", "docs/**", "eslint.config.js", "eslint.boundaries.js", ".dependency-cruiser.mjs"] },
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
  ...boundaries,
);
