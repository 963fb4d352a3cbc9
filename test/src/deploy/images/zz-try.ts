import { execa } from "execa";
import { startModelMirror, MIRRORED_MODEL } from "./model-mirror.ts";
const mirror = await startModelMirror();
console.log(mirror.url);
const args = ["build", "--network", "host", "-v", `${process.cwd()}/.tmp/images-check/build-trust/ca.crt:/run/caption-build/ca.crt:ro`, "-v", `${process.cwd()}/.tmp/images-check/build-trust/npmrc:/usr/local/etc/npmrc:ro`,
  "--build-arg", "NODE_IMAGE=localhost/caption-base/node24-bookworm:fece08c01f95f957", "--build-arg", `ASR_MODEL=${MIRRORED_MODEL}`, "--build-arg", "ASR_MODEL_TRUST_ON_FIRST_USE=1", "--build-arg", `ASR_MODEL_MIRROR=${mirror.url}`,
  "-f", "docker/cpu-worker/Dockerfile", "-t", "localhost/caption-cpu-worker:check", "."];
const r = await execa("podman", args, { env: { CONTAINERS_CONF: `${process.cwd()}/.tmp/images-check/containers.conf` }, stdout: "inherit", stderr: "inherit", reject: false });
console.log("exit", r.exitCode);
await mirror.close();
