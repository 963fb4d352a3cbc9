{{- define "caption.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "caption.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else if contains (include "caption.name" .) .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name (include "caption.name" .) | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}

{{- define "caption.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/name: {{ include "caption.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/* Selector labels of one component: call with (dict "root" $ "component" "api"). */}}
{{- define "caption.selectorLabels" -}}
app.kubernetes.io/name: {{ include "caption.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{- define "caption.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "caption.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "caption.image" -}}
{{- printf "%s:%s" .image.repository (default .root.Chart.AppVersion .image.tag) }}
{{- end }}

{{/* The most API pods that can run at once. */}}
{{- define "caption.apiReplicasMax" -}}
{{- if .Values.api.autoscaling.enabled }}{{ .Values.api.autoscaling.maxReplicas }}{{ else }}{{ .Values.api.replicaCount }}{{ end }}
{{- end }}

{{/* Values that cannot work stop the install with what to set (test/src/deploy/helm-render.test.ts shows each). */}}
{{- define "caption.checkValues" -}}
{{- if and (not .Values.config.storageUrl) (not .Values.persistence.existingClaim) }}
{{- fail "no result storage: set config.storageUrl (s3://bucket/prefix) or persistence.existingClaim (a ReadWriteMany volume shared by the API and the workers)" }}
{{- end }}
{{- $apiPods := int (include "caption.apiReplicasMax" .) }}
{{- if and (not .Values.config.storageUrl) (not .Values.secrets.urlSigning.name) (gt $apiPods 1) }}
{{- fail (printf "local storage with up to %d API pods needs secrets.urlSigning.name (a Secret with 32+ random characters): every API pod must sign and check result links with the same key; or set config.storageUrl" $apiPods) }}
{{- end }}
{{- if and .Values.worker.keda.enabled (eq .Values.worker.keda.connection "authenticationRef") (not .Values.worker.keda.authenticationRef.name) }}
{{- fail "worker.keda.enabled with worker.keda.connection=authenticationRef leaves KEDA no way to reach the database: set worker.keda.authenticationRef.name to an existing TriggerAuthentication (or ClusterTriggerAuthentication, with worker.keda.authenticationRef.kind) that gives the postgresql scaler a connection, or set worker.keda.connection=databaseSecret to use secrets.database" }}
{{- end }}
{{- end }}

{{/* The job label the PodMonitor gives a component's targets, which the alert rules select: call with (dict "root" $ "component" "api"). */}}
{{- define "caption.metricsJob" -}}
{{- printf "%s-%s" (include "caption.fullname" .root) .component }}
{{- end }}

{{/* Environment shared by every container: database, storage, credentials, telemetry. Call with (dict "root" $ "s3Endpoint" "..."). */}}
{{- define "caption.commonEnv" -}}
{{- $v := .root.Values -}}
- name: DATABASE_URL
  valueFrom:
    secretKeyRef:
      name: {{ $v.secrets.database.name }}
      key: {{ $v.secrets.database.key }}
- name: DATA_DIR
  value: /data
- name: LOG_LEVEL
  value: {{ $v.config.logLevel | quote }}
{{- with $v.config.storageUrl }}
- name: STORAGE_URL
  value: {{ . | quote }}
{{- end }}
{{- with $v.config.s3.region }}
- name: AWS_REGION
  value: {{ . | quote }}
{{- end }}
{{- with .s3Endpoint }}
- name: AWS_ENDPOINT_URL_S3
  value: {{ . | quote }}
{{- end }}
{{- if $v.secrets.s3.name }}
- name: AWS_ACCESS_KEY_ID
  valueFrom:
    secretKeyRef:
      name: {{ $v.secrets.s3.name }}
      key: {{ $v.secrets.s3.accessKeyIdKey }}
- name: AWS_SECRET_ACCESS_KEY
  valueFrom:
    secretKeyRef:
      name: {{ $v.secrets.s3.name }}
      key: {{ $v.secrets.s3.secretAccessKeyKey }}
{{- end }}
{{- with $v.observability.otlpEndpoint }}
- name: OTEL_EXPORTER_OTLP_ENDPOINT
  value: {{ . | quote }}
{{- end }}
{{- end }}
