import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { Type, type Static } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { LiteralUnion } from "@caption/shared/api/style";

/** sherpa-onnx offline recognizer families this worker knows how to configure. */
export const MODEL_FAMILIES = ["nemo-ctc", "nemo-transducer", "transducer", "sense-voice"] as const;
export type ModelFamily = (typeof MODEL_FAMILIES)[number];

export const FILE_ROLES = ["model", "encoder", "decoder", "joiner", "tokens"] as const;
export type FileRole = (typeof FILE_ROLES)[number];

const Sha256 = Type.String({ pattern: "^[0-9a-f]{64}$", description: "lower-case hex" });
const RelativePath = Type.String({ pattern: "^(?!/)(?!.*(^|/)\\.\\.(/|$))[^\\\\]+$", description: "inside the model folder" });
const HttpUrl = Type.String({ pattern: "^https?://" });

export const ModelFileSchema = Type.Object(
  {
    role: LiteralUnion(FILE_ROLES),
    path: RelativePath,
    /** Pinned upstream checksum; a download or an install that does not match it is refused. */
    sha256: Type.Optional(Sha256),
    size: Type.Optional(Type.Integer({ minimum: 1 })),
    /** Where the file itself is fetched from, when the model is not shipped as one archive. */
    url: Type.Optional(HttpUrl),
  },
  { additionalProperties: false },
);
export type ModelFile = Static<typeof ModelFileSchema>;

export const ModelArchiveSchema = Type.Object(
  {
    url: HttpUrl,
    /** Only .tar.bz2 is handled (what k2-fsa publishes); it needs `tar` and `bzip2` on PATH. */
    format: Type.Literal("tar.bz2"),
    sha256: Type.Optional(Sha256),
    size: Type.Optional(Type.Integer({ minimum: 1 })),
    /** Folder inside the archive that holds the files. */
    root: RelativePath,
  },
  { additionalProperties: false },
);

const ModelDescriptionProperties = {
  name: Type.String({ pattern: "^[a-z0-9][a-z0-9._-]*$" }),
  family: LiteralUnion(MODEL_FAMILIES),
  /** ISO 639-1/3 codes the model transcribes. */
  languages: Type.Array(Type.String({ pattern: "^[a-z]{2,3}$" }), { minItems: 1, uniqueItems: true }),
  /** Transcribes whichever of its languages is spoken without being told. */
  detectsLanguage: Type.Boolean(),
  /** The recognizer returns a time per token (otherwise words are spread over the segment). */
  tokenTimestamps: Type.Boolean(),
};

export const ModelSpecSchema = Type.Object(
  {
    ...ModelDescriptionProperties,
    description: Type.String(),
    license: Type.String(),
    homepage: HttpUrl,
    archive: Type.Optional(ModelArchiveSchema),
    files: Type.Array(ModelFileSchema, { minItems: 1 }),
  },
  { additionalProperties: false },
);
export type ModelSpec = Static<typeof ModelSpecSchema>;

export const ModelManifestSchema = Type.Object(
  { models: Type.Array(ModelSpecSchema, { minItems: 1 }) },
  { additionalProperties: false, description: "gpu-worker/models/manifest.json" },
);
export type ModelManifest = Static<typeof ModelManifestSchema>;

/**
 * What `models:download` leaves beside an installed model (`installed.json`): the description plus
 * the size and sha256 of every file as installed, so a later truncation or corruption is caught
 * before onnxruntime sees the file, even where upstream publishes no checksum.
 */
export const InstalledModelSchema = Type.Object(
  {
    ...ModelDescriptionProperties,
    files: Type.Array(
      Type.Object(
        { role: LiteralUnion(FILE_ROLES), path: RelativePath, sha256: Sha256, size: Type.Integer({ minimum: 1 }) },
        { additionalProperties: false },
      ),
      { minItems: 1 },
    ),
    /** Whether every checksum was pinned in the manifest (false: recorded on first download only). */
    checksumsPinned: Type.Boolean(),
    /**
     * What was downloaded (the archive, or each file) and its hash: checked against the manifest's pin,
     * or, where the manifest has none and the operator passed --trust-on-first-use, recorded here and
     * required of every later download of the same URL.
     */
    downloads: Type.Optional(
      Type.Array(Type.Object({ url: HttpUrl, sha256: Sha256, size: Type.Integer({ minimum: 0 }), pinned: Type.Boolean() }, { additionalProperties: false })),
    ),
    installedAt: Type.String({ description: "ISO 8601" }),
  },
  { additionalProperties: false },
);
export type InstalledModel = Static<typeof InstalledModelSchema>;

export const INSTALL_RECORD = "installed.json";
export const DEFAULT_MANIFEST_PATH = join(import.meta.dirname, "..", "..", "..", "models", "manifest.json");

/** Files each family needs, by role. */
export const FAMILY_ROLES: Record<ModelFamily, readonly FileRole[]> = {
  "nemo-ctc": ["model", "tokens"],
  "nemo-transducer": ["encoder", "decoder", "joiner", "tokens"],
  transducer: ["encoder", "decoder", "joiner", "tokens"],
  "sense-voice": ["model", "tokens"],
};

export class ManifestError extends Error {
  override name = "ManifestError";
}

/** Checks the roles a family needs and that every file can be fetched. */
export function checkModelSpec(spec: ModelSpec): void {
  for (const role of FAMILY_ROLES[spec.family]) {
    if (spec.files.filter((f) => f.role === role).length !== 1) {
      throw new ManifestError(`model ${spec.name}: family ${spec.family} needs exactly one "${role}" file`);
    }
  }
  if (!spec.archive && spec.files.some((f) => f.url === undefined)) {
    throw new ManifestError(`model ${spec.name}: without an archive every file needs a url`);
  }
}

export function parseManifest(json: unknown): ModelManifest {
  if (!Value.Check(ModelManifestSchema, json)) {
    const first = Value.Errors(ModelManifestSchema, json).First();
    throw new ManifestError(`model manifest is invalid at ${first?.path ?? "/"}: ${first?.message ?? "unknown"}`);
  }
  const names = new Set<string>();
  for (const spec of json.models) {
    if (names.has(spec.name)) throw new ManifestError(`model manifest names ${spec.name} twice`);
    names.add(spec.name);
    checkModelSpec(spec);
  }
  return json;
}

export async function readManifest(path = DEFAULT_MANIFEST_PATH): Promise<ModelManifest> {
  return parseManifest(JSON.parse(await readFile(path, "utf8")));
}
