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

{{/* Results must be shared by the API and the workers: a bucket, or a ReadWriteMany volume. */}}
{{- define "caption.checkStorage" -}}
{{- if and (not .Values.config.storageUrl) (not .Values.persistence.existingClaim) }}
{{- fail "set config.storageUrl (s3://bucket/prefix) or persistence.existingClaim (a ReadWriteMany volume shared by the API and the workers)" }}
{{- end }}
{{- if and (not .Values.config.storageUrl) (not .Values.secrets.urlSigning.name) }}
{{- fail "local storage needs secrets.urlSigning.name: every API replica must sign result links with the same key" }}
{{- end }}
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
