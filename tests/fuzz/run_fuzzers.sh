#!/usr/bin/env bash
# Runs each libFuzzer target of tests/fuzz for a bounded time with seeds from scenes/, assets/
# and tests/hostile/found/.
#   tests/fuzz/run_fuzzers.sh BUILD_DIR [SECONDS_PER_TARGET=45] [TARGET ...]
# (CONTACTLAB_FUZZ_SEED, default 1: libFuzzer's -seed.)
# (CONTACTLAB_FUZZ_JOBS, default the number of cores: targets run at once.)
# BUILD_DIR is a -DCONTACTLAB_FUZZ=ON build (tests/fuzz/CMakeLists.txt). Each target's growing
# corpus is kept in BUILD_DIR/fuzz-corpus/NAME (reused by the next run); an input that crashes,
# leaks, times out (> 10 s) or exceeds 2 GB is written to BUILD_DIR/fuzz-artifacts/ and the
# script exits 1 after running the other targets. Minimize a finding with
#   BUILD_DIR/tests/fuzz/NAME -minimize_crash=1 -runs=10000 ARTIFACT
# and add it to tests/hostile/found/ (scene inputs as .yaml, mesh inputs without the first byte
# and with the extension it selects).
set -uo pipefail
cd "$(dirname "$0")/../.."
build=${1:?usage: run_fuzzers.sh BUILD_DIR [SECONDS] [TARGET ...]}
seconds=${2:-45}
# A fixed seed makes a run repeatable: the same binary and seeds mutate the same inputs in the
# same order, so a run of S seconds covers a prefix of a longer run made before landing.
seed=${CONTACTLAB_FUZZ_SEED:-1}
shift $(( $# >= 2 ? 2 : 1 ))
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(fuzz_scene fuzz_set fuzz_mesh fuzz_hull)
bin=$build/tests/fuzz
seeds=$build/fuzz-seeds
artifacts=$build/fuzz-artifacts
rm -rf "$seeds"  # rebuilt below from the current sources
mkdir -p "$seeds" "$artifacts"

# Seeds. Scenes: every shipped scene and every found input.
mkdir -p "$seeds/fuzz_scene" "$seeds/fuzz_set" "$seeds/fuzz_mesh" "$seeds/fuzz_hull"
for f in scenes/*.yaml scenes/*/*.yaml tests/hostile/found/*.yaml; do
  [ -f "$f" ] && cp "$f" "$seeds/fuzz_scene/$(echo "$f" | tr / _)"
done
# Overrides: one per line of set_seeds.txt.
i=0
while IFS= read -r line; do
  printf '%s' "$line" > "$seeds/fuzz_set/seed_$i"; i=$((i + 1))
done < tests/fuzz/set_seeds.txt
# Meshes: the first byte selects the extension (fuzz_mesh.cc: .obj .ply .stl .gltf .glb .off).
ext_byte() { case "$1" in obj) echo 0;; ply) echo 1;; stl) echo 2;; gltf) echo 3;; glb) echo 4;; off) echo 5;; *) echo 0;; esac; }
for f in assets/meshes/* tests/hostile/found/*; do
  [ -f "$f" ] || continue
  ext=${f##*.}
  case "$ext" in yaml|yml|md) continue;; esac
  { printf "\\$(printf '%03o' "$(ext_byte "$ext")")"; cat "$f"; } > "$seeds/fuzz_mesh/$(basename "$f")"
done
# Hull: the 8 corners of a unit cube as little-endian doubles, and a tetrahedron.
python3 - "$seeds/fuzz_hull" <<'PY'
import itertools, struct, sys
cube = [p for p in itertools.product((0.0, 1.0), repeat=3)]
open(sys.argv[1] + "/cube", "wb").write(b"".join(struct.pack("<3d", *p) for p in cube))
tet = [(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1)]
open(sys.argv[1] + "/tetra", "wb").write(b"".join(struct.pack("<3d", *p) for p in tet))
PY

# Leaks inside Debian libraries are suppressed (lsan.supp names each with its reason).
export LSAN_OPTIONS="suppressions=$PWD/tests/fuzz/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
# Targets run concurrently, CONTACTLAB_FUZZ_JOBS at a time (default: the number of cores): each
# libFuzzer process is single-threaded, so on N cores N targets get the same CPU time each as
# one after another, in 1/N of the wall time.
fuzz_jobs=${CONTACTLAB_FUZZ_JOBS:-$(nproc)}
run_one() {
  local t=$1 max_len
  case "$t" in
    fuzz_scene) max_len=65536 ;;
    fuzz_set) max_len=4096 ;;
    fuzz_mesh) max_len=65536 ;;
    fuzz_hull) max_len=48000 ;;
  esac
  local corpus=$build/fuzz-corpus/$t
  mkdir -p "$corpus"
  if "$bin/$t" -seed="$seed" -max_total_time="$seconds" -max_len="$max_len" -rss_limit_mb=2048 -timeout=10 \
      -artifact_prefix="$artifacts/$t-" -print_final_stats=1 "$corpus" "$seeds/$t" \
      > "$build/fuzz-$t.log" 2>&1; then
    echo 0 > "$build/fuzz-$t.status"
  else
    echo 1 > "$build/fuzz-$t.status"
  fi
}
for t in "${targets[@]}"; do
  case "$t" in
    fuzz_scene|fuzz_set|fuzz_mesh|fuzz_hull) ;;
    *) echo "run_fuzzers: unknown target $t"; exit 2 ;;
  esac
done
echo "== ${targets[*]}: ${seconds} s each, $fuzz_jobs at a time"
running=0
for t in "${targets[@]}"; do
  rm -f "$build/fuzz-$t.status"
  if [ "$running" -ge "$fuzz_jobs" ]; then
    wait -n || true
    running=$((running - 1))
  fi
  run_one "$t" &
  running=$((running + 1))
done
wait
status=0
for t in "${targets[@]}"; do
  echo "== $t"
  if [ "$(cat "$build/fuzz-$t.status" 2> /dev/null)" != 0 ]; then
    status=1
    echo "run_fuzzers: $t found a failing input:"
    grep -E "ERROR|SUMMARY|==[0-9]+==|#[0-9]+ 0x|Test unit written|uncaught|deadly signal|timeout|out-of-memory" \
      "$build/fuzz-$t.log" | head -60
  else
    grep -E "stat::number_of_executed_units|stat::peak_rss_mb|cov:" "$build/fuzz-$t.log" | tail -3
  fi
done
exit $status
