#!/usr/bin/env bash
# The GPU path's one prepared device check: the reference workloads and whole runs on webgpu, this checkout against
# a baseline commit, in one sitting on one machine. Build the kit here first, then hand it to the device tool:
#   npm run bench:device-kit -- <BASELINE_COMMIT>
#   device run: command "bash bench/device/check.sh", carry [".device"], timeout_s 600
# Writes to $OUT (the device tool's folder; /tmp/device-check elsewhere): check.log (everything printed, each
# command's wall time), bench-now.json / bench-before.json (the bench's JSON), members.md (the member axis against
# K single steps and rollouts, bench/memberBatching.ts), runs.tar.gz (each run's summary,
# report, events and step metrics: time/readbacks and time/readbacks_async per step). Commands run in order of
# importance, each under its own time limit (together 580 s, inside the tool's 600 s), and the runs are packed after
# every command, so a call cut short still returns the first results.
# QUICK=1 bash bench/device/check.sh checks the kit's plumbing here in a minute: one W1 step and a cut smoke run, on
# wasm (webgpu on SwiftShader takes many minutes; `node .device/now/cli/bench.mjs --backends webgpu` runs it).
set -uo pipefail
OUT=${OUT:-/tmp/device-check}
mkdir -p "$OUT"
exec > >(tee "$OUT/check.log") 2>&1
kit=${KIT_DIR:-.device}
if [ ! -f "$kit/now/cli/bench.mjs" ]; then
  echo "check: no $kit/now: run 'bash bench/device/kit.sh [BASELINE_COMMIT]' first and carry $kit"
  exit 2
fi
if ! ldconfig -p 2>/dev/null | grep -q 'libvulkan.so.1'; then
  for f in "$kit"/gl/*.deb; do [ -f "$f" ] && dpkg -x "$f" /; done
  ldconfig
fi
nvidia-smi -L 2>/dev/null || echo "no nvidia-smi"
echo "node $(node --version), $(nproc) cores; now = $(tr '\n' ' ' <"$kit/now/COMMIT")"
[ -d "$kit/before" ] && echo "before = $(cat "$kit/before/COMMIT")"
runs=$(mktemp -d)

# timed LIMIT_S NAME COMMAND…: runs one command under its own limit; its name and wall time go to stderr (the log),
# so a command's stdout can go to a file of its own
timed() {
  local limit=$1 name=$2
  shift 2
  local t0=$(date +%s%N)
  echo "== $(date -u +%T) $name: $*" >&2
  timeout "$limit" "$@"
  local rc=$?
  echo "== $name: rc $rc, $(( ($(date +%s%N) - t0) / 1000000 )) ms wall" >&2
  pack
}

# the runs so far, packed after every command (the device tool's limit may cut the call short)
pack() {
  (cd "$runs" && find . \( -name summary.json -o -name report.md -o -name events.jsonl -o -name metrics.jsonl \
    -o -name comparison.md \) -print0 | tar czf "$OUT/runs.tar.gz" --null -T -)
}

if [ "${QUICK:-0}" = 1 ]; then
  timed 300 bench-now node "$kit/now/cli/bench.mjs" --backends wasm --workloads w1 --steps 1 --warmup 1 \
    >"$OUT/bench-now.json"
  timed 300 members-now node "$kit/now/bench/memberBatching.mjs" --backend wasm --members 1,2 --steps 1 \
    --repeats 1 >"$OUT/members.md"
  timed 600 smoke-now node "$kit/now/cli/experiment.mjs" --preset smoke --seed 2 --backend wasm --no-progress \
    --set sft.steps=2 --set teacher.steps=3 --set student.steps=6 --out "$runs/smoke-now"
else
  timed 120 bench-now node "$kit/now/cli/bench.mjs" --backends webgpu,wasm --workloads w1,w2cached,loss \
    >"$OUT/bench-now.json"
  timed 120 shell-now node "$kit/now/cli/experiment.mjs" --preset retire-shell --seed 0 --backend webgpu --no-progress \
    --out "$runs/retire-shell-now"
  timed 150 arms-now node "$kit/now/cli/sweep.mjs" --presets retire-shell,opd-shell,grpo-shell --seeds 0 \
    --backend webgpu --jobs 1 --no-progress --out "$runs/three-arms-now"
  timed 60 members-now node "$kit/now/bench/memberBatching.mjs" --backend webgpu --members 1,4,8 --steps 5 \
    --repeats 1 >"$OUT/members.md"
  if [ -d "$kit/before" ]; then
    timed 50 bench-before node "$kit/before/cli/bench.mjs" --backends webgpu --workloads w1,w2cached,loss \
      >"$OUT/bench-before.json"
    timed 80 shell-before node "$kit/before/cli/experiment.mjs" --preset retire-shell --seed 0 --backend webgpu \
      --no-progress --out "$runs/retire-shell-before"
  fi
fi
rm -rf "$runs"
echo "== $(date -u +%T) done; files in $OUT"
