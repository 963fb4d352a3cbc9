import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import { modelFolder } from "./model-folder.ts";

test("ASR_MODEL_DIR names the model folder; without it, models/ under DATA_DIR, resolved", () => {
  assert.equal(modelFolder({ ASR_MODEL_DIR: "/opt/caption/models", DATA_DIR: "/data" }), "/opt/caption/models");
  assert.equal(modelFolder({ ASR_MODEL_DIR: undefined, DATA_DIR: "/data" }), "/data/models");
  assert.equal(modelFolder({ ASR_MODEL_DIR: undefined, DATA_DIR: "./.data" }), path.resolve(".data", "models"));
});
