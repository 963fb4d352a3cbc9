// Import cycles, type-only imports included (`npm test` and `npm run lint` run this; eslint.config.js's
// boundaries keep the layers, this keeps files of one folder from importing each other in a loop).
/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "Files that import each other in a loop, directly or through others: move what both need to a module below them.",
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    // `import type` counts: a loop of types still ties the files into one.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    doNotFollow: { path: "(^|/)node_modules/" },
    exclude: { path: "(^|/)node_modules/|^\\.(tmp|tools|data)/" },
    enhancedResolveOptions: { exportsFields: ["exports"], conditionNames: ["import", "node", "default"], extensions: [".ts", ".js", ".mjs"] },
  },
};
