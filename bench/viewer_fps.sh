#!/bin/sh
# Frames per second of the viewer with its default overlays, under Xvfb (Mesa llvmpipe without a
# GPU), at 1600x900: each scene is played RUNS times in real time for SECONDS (`contactlab view
# SCENE --seconds S --no-settings`), and the script prints per scene the median over the runs of
# each run's median frame time, its frames per second, and the load average before each run
# (llvmpipe renders on every core: measure on an otherwise idle machine).
#
# usage: bench/viewer_fps.sh [-b BUILD_DIR] [-s SECONDS] [-r RUNS] [SCENE...]
#   defaults: build, 10 s, 3 runs, scenes/clutter_40_walls.yaml
#             scenes/bench/clutter_160_walls.yaml scenes/paper/robot_dish_pile.yaml
# Extra `view` options go in VIEW_ARGS (e.g. VIEW_ARGS="--transparent").
set -eu

build=build
seconds=10
runs=3
while getopts b:s:r: opt; do
  case $opt in
  b) build=$OPTARG ;;
  s) seconds=$OPTARG ;;
  r) runs=$OPTARG ;;
  *) sed -n '2,11p' "$0" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
if [ $# -eq 0 ]; then
  set -- scenes/clutter_40_walls.yaml scenes/bench/clutter_160_walls.yaml \
    scenes/paper/robot_dish_pile.yaml
fi
cl=$build/app/contactlab
[ -x "$cl" ] || { echo "viewer_fps: no $cl (build first)" >&2; exit 2; }
command -v xvfb-run > /dev/null || { echo "viewer_fps: xvfb-run is missing" >&2; exit 2; }

out=$(mktemp)
trap 'rm -f "$out"' EXIT
for scene in "$@"; do
  medians=""
  loads=""
  i=0
  while [ "$i" -lt "$runs" ]; do
    loads="$loads $(cut -d' ' -f1 /proc/loadavg)"
    # shellcheck disable=SC2086
    xvfb-run -a -s "-screen 0 1600x900x24" "$cl" view "$scene" --seconds "$seconds" \
      --no-settings ${VIEW_ARGS:-} > "$out" 2>&1 || { cat "$out" >&2; exit 1; }
    m=$(sed -n 's/.*frame time median \([0-9.]*\) ms.*/\1/p' "$out")
    [ -n "$m" ] || { cat "$out" >&2; exit 1; }
    medians="$medians $m"
    i=$((i + 1))
  done
  echo "$medians" | tr ' ' '\n' | sed '/^$/d' | sort -g | awk -v scene="$scene" \
    -v runs="$medians" -v loads="$loads" '
    { v[NR] = $1 }
    END {
      m = (NR % 2) ? v[(NR + 1) / 2] : 0.5 * (v[NR / 2] + v[NR / 2 + 1])
      printf "%s: median frame %.2f ms = %.1f fps (runs:%s ms; load before each:%s)\n",
             scene, m, 1000 / m, runs, loads
    }'
done
