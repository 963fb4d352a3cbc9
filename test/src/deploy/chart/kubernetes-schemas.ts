// Offline validation of rendered objects: the Kubernetes API's own OpenAPI schemas as kubernetes-models
// compiles them, and the CRDs' schemas for KEDA and the Prometheus Operator. No cluster, no network.
import * as keda from "@kubernetes-models/keda/keda.sh/v1alpha1";
import * as monitoring from "@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1";
import * as apps from "kubernetes-models/apps/v1";
import * as autoscaling from "kubernetes-models/autoscaling/v2";
import * as batch from "kubernetes-models/batch/v1";
import * as networking from "kubernetes-models/networking.k8s.io/v1";
import * as policy from "kubernetes-models/policy/v1";
import * as core from "kubernetes-models/v1";
import type { KubernetesObject } from "./render.ts";

interface ModelClass {
  apiVersion: string;
  kind: string;
  new (data: object): { validate(): void };
}

const isModel = (value: unknown): value is ModelClass =>
  typeof value === "function" && typeof (value as Partial<ModelClass>).apiVersion === "string" && typeof (value as Partial<ModelClass>).kind === "string";

const MODELS = new Map(
  [core, apps, autoscaling, batch, networking, policy, keda, monitoring]
    .flatMap((module) => Object.values(module))
    .filter(isModel)
    .map((model) => [`${model.apiVersion} ${model.kind}`, model] as const),
);

/**
 * The Kubernetes release from which each built-in API the chart renders is served as GA; the chart's
 * kubeVersion must not be older. (kubernetes-models holds the newest schemas of every API version, so
 * it cannot say by itself whether a version is served by an older cluster.) Custom resources are served
 * by whatever operator installed them.
 */
export const SERVED_SINCE: Record<string, string> = {
  "v1 ConfigMap": "1.2",
  "v1 Service": "1.2",
  "v1 ServiceAccount": "1.2",
  "apps/v1 Deployment": "1.9",
  "batch/v1 Job": "1.2",
  "networking.k8s.io/v1 Ingress": "1.19",
  "policy/v1 PodDisruptionBudget": "1.21",
  "autoscaling/v2 HorizontalPodAutoscaler": "1.23",
};
export const CUSTOM_RESOURCE_GROUPS = ["keda.sh/", "monitoring.coreos.com/"];

/** Problems with one rendered object: no schema for its kind, or what its schema says is wrong. */
export function validationErrors(object: KubernetesObject): string[] {
  const key = `${object.apiVersion} ${object.kind}`;
  const Model = (MODELS as Map<string, ModelClass>).get(key);
  if (!Model) return [`${key}: no schema to validate it against`];
  try {
    new Model(object).validate();
    return [];
  } catch (error) {
    return [`${key} ${object.metadata.name}: ${(error as Error).message}`];
  }
}
