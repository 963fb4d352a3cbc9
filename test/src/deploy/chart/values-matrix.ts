// The values the chart is rendered with in the tests: each a way operators install it, as overlays on
// values.yaml (a string names a values file of the chart), with the objects it must render.
import type { Values } from "./render.ts";

export interface ValuesCase {
  name: string;
  layers: (Values | string)[];
  /** `kind/name-suffix` of every object rendered, sorted. */
  renders: string[];
}

const S3 = { config: { storageUrl: "s3://caption-results/prod", s3: { region: "eu-west-1", endpoint: "", publicEndpoint: "" } } };
const SHARED_VOLUME = { persistence: { existingClaim: "caption-results" }, secrets: { urlSigning: { name: "caption-url-signing", key: "secret" } } };
const CPU_WORKERS = {
  image: { worker: { repository: "registry.example.com/caption/cpu-worker", tag: "0.1.0", pullPolicy: "IfNotPresent" } },
  worker: { gpu: { enabled: false }, asr: { engine: "auto", provider: "cpu" }, tolerations: [], resources: { requests: { cpu: "2", memory: "2Gi" }, limits: { memory: "4Gi" } } },
};
const BASE = ["Deployment/-api", "Deployment/-worker", "HorizontalPodAutoscaler/-api", "Job/-migrate", "PodDisruptionBudget/-api", "PodDisruptionBudget/-worker", "Service/-api", "ServiceAccount/"];
const sorted = (list: string[]) => [...list].sort();

export const VALUES_MATRIX: ValuesCase[] = [
  {
    name: "the production example: S3 through IRSA, ingress with TLS, GPU pool, KEDA, PodMonitor, alerts, dashboard",
    layers: ["values-example.yaml"],
    renders: sorted([...BASE.filter((o) => o !== "ServiceAccount/"), "ServiceAccount/caption", "Ingress/-api", "ScaledObject/-worker", "TriggerAuthentication/-worker-postgres", "PodMonitor/", "PrometheusRule/", "ConfigMap/-dashboard"]),
  },
  {
    name: "S3-compatible store with static keys (MinIO), CPU workers, no KEDA, no ingress",
    layers: [S3, CPU_WORKERS, { config: { s3: { region: "us-east-1", endpoint: "http://minio.storage:9000", publicEndpoint: "https://files.example.com" } }, secrets: { s3: { name: "caption-s3" } } }],
    renders: sorted(BASE),
  },
  {
    name: "a shared ReadWriteMany volume with a signing secret, API autoscaled",
    layers: [SHARED_VOLUME],
    renders: sorted(BASE),
  },
  {
    name: "a shared volume and one API pod without a signing secret (it keeps its own key)",
    layers: [{ persistence: { existingClaim: "caption-results" }, api: { replicaCount: 1, autoscaling: { enabled: false }, podDisruptionBudget: { enabled: false } } }, CPU_WORKERS],
    renders: sorted(["Deployment/-api", "Deployment/-worker", "Job/-migrate", "PodDisruptionBudget/-worker", "Service/-api", "ServiceAccount/"]),
  },
  {
    name: "KEDA through an existing ClusterTriggerAuthentication, GPUs with tolerations and a runtime class",
    layers: [
      S3,
      {
        worker: {
          keda: { enabled: true, connection: "authenticationRef", authenticationRef: { name: "caption-postgres", kind: "ClusterTriggerAuthentication" } },
          runtimeClassName: "nvidia",
          gpu: { enabled: true, count: 2, resourceName: "nvidia.com/gpu" },
          nodeSelector: { "nvidia.com/gpu.present": "true" },
        },
      },
    ],
    renders: sorted([...BASE, "ScaledObject/-worker"]),
  },
  {
    name: "ingress without TLS, existing service account, no migrations, no PDBs, pull secrets, monitoring through annotations",
    layers: [
      S3,
      {
        fullnameOverride: "captions",
        serviceAccount: { create: false, name: "captions" },
        imagePullSecrets: [{ name: "registry" }],
        migrations: { enabled: false },
        api: { ingress: { enabled: true, className: "nginx" }, podDisruptionBudget: { enabled: false }, service: { type: "LoadBalancer", port: 443 } },
        worker: { podDisruptionBudget: { enabled: false } },
        observability: { prometheusScrape: true, otlpEndpoint: "http://otel-collector:4318" },
      },
    ],
    renders: sorted(["Deployment/-api", "Deployment/-worker", "HorizontalPodAutoscaler/-api", "Service/-api", "Ingress/-api"]),
  },
];

/** Values that cannot work, each refused at install with a message naming what to set. */
export const REFUSED: { name: string; layers: (Values | string)[]; message: RegExp }[] = [
  { name: "no result storage", layers: [], message: /no result storage: set config\.storageUrl .* or persistence\.existingClaim/ },
  {
    name: "local storage, several API pods (autoscaled up to 10), no signing secret",
    layers: [{ persistence: { existingClaim: "caption-results" } }],
    message: /local storage with up to 10 API pods needs secrets\.urlSigning\.name/,
  },
  {
    name: "local storage, three API replicas, no signing secret",
    layers: [{ persistence: { existingClaim: "caption-results" }, api: { replicaCount: 3, autoscaling: { enabled: false } } }],
    message: /local storage with up to 3 API pods needs secrets\.urlSigning\.name/,
  },
  {
    name: "KEDA on with no way to reach the database",
    layers: [S3, { worker: { keda: { enabled: true, connection: "authenticationRef" } } }],
    message: /leaves KEDA no way to reach the database: set worker\.keda\.authenticationRef\.name .* or set worker\.keda\.connection=databaseSecret/,
  },
];
