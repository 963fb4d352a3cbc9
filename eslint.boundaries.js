// Package boundaries and layers (docs/development.md "Layout"). A package imports another only by name, through the
// entry points in that package's package.json "exports", and only the packages it may depend on.
// Inside shared, control-plane and gpu-worker a folder imports only its own folder and folders on lower layers;
// production code never imports test support.
const PACKAGES = ["shared", "control-plane", "gpu-worker", "bench", "test"];
const MAY_DEPEND_ON = {
  shared: [],
  "control-plane": ["shared"],
  "gpu-worker": ["shared"],
  bench: ["shared", "control-plane", "gpu-worker"],
  test: ["shared", "control-plane", "gpu-worker"],
};
/** Top layer first. Folders of one layer do not import each other. */
const LAYERS = {
  shared: [["jobs"], ["runtime"], ["db", "storage", "telemetry", "net", "preview"], ["style"], ["presets", "config"], ["api", "errors", "time"]],
  "control-plane": [["cli"], ["client"], ["runtime"], ["http"], ["services"], ["db", "queue", "storage", "telemetry"]],
  "gpu-worker": [["cli"], ["runtime", "tools"], ["pipeline"], ["subtitles", "words"], ["asr", "render", "ingest", "storage", "db", "telemetry"], ["media"]],
};
const MAX_DEPTH = 3;
const KOA_FREE = { "control-plane": ["services", "db", "queue", "storage"] };

/** A path into another package's sources: `…/<package>/src/…` or `../…/<package>/…`. */
const OTHER_PACKAGE_PATH = `(^|/)(${PACKAGES.join("|")})/src(/|$)|^(\\.\\./)+(${PACKAGES.join("|")})/`;
const BY_NAME = "Import another package by its name (@caption/…) through the entry points its package.json exports.";

const packagePatterns = (pkg) => [
  { regex: OTHER_PACKAGE_PATH, message: BY_NAME },
  ...PACKAGES.filter((other) => other !== pkg && !MAY_DEPEND_ON[pkg].includes(other)).map((other) => ({
    regex: `^@caption/${other}(/|$)`,
    message: `${pkg} may not depend on ${other} (docs/development.md "Layout").`,
  })),
];
const rule = (patterns) => ({ "no-restricted-imports": ["error", { patterns }] });

function layerBlocks(pkg) {
  const layers = LAYERS[pkg];
  const blocks = [];
  layers.forEach((layer, rank) => {
    for (const folder of layer) {
      const above = layers.slice(0, rank + 1).flat().filter((f) => f !== folder);
      const forbidden = [...above, "testing"];
      for (let depth = 0; depth <= MAX_DEPTH; depth++) {
        const up = `(\\.\\./){${depth + 1}}`;
        const patterns = [
          ...packagePatterns(pkg),
          {
            regex: `^${up}(${forbidden.join("|")})(/|\\.ts$)`,
            message: `${pkg}/src/${folder} may import only folders on lower layers (docs/development.md "Layout"), never test support.`,
          },
          { regex: "^@caption/[^/]+/testing(/|$)", message: "Production code never imports test support." },
          ...((KOA_FREE[pkg] ?? []).includes(folder)
            ? [{ regex: "^(koa|@koa/.*)$", message: "Services and what lies below them know nothing of Koa: throw a ServiceError." }]
            : []),
        ];
        blocks.push({
          files: [`${pkg}/src/${folder}/${"*/".repeat(depth)}*.ts`],
          ignores: ["**/*.test.ts"],
          rules: rule(patterns),
        });
      }
    }
  });
  return blocks;
}

// no-restricted-imports does not see import(): the same rule for dynamic imports of another package's sources.
const dynamicImports = {
  files: ["**/*.ts"],
  rules: {
    "no-restricted-syntax": ["error", { selector: `ImportExpression[source.value=/${OTHER_PACKAGE_PATH.replaceAll("/", "\\/")}/]`, message: BY_NAME }],
  },
};

/** One config block per package and per layered folder and depth (no-restricted-imports options do not merge). */
export const boundaries = [
  dynamicImports,
  ...PACKAGES.map((pkg) => ({ files: [`${pkg}/**/*.ts`], rules: rule(packagePatterns(pkg)) })),
  { files: ["scripts/**/*.ts"], rules: rule(packagePatterns("test")) },
  ...Object.keys(LAYERS).flatMap(layerBlocks),
];
