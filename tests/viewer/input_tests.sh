#!/bin/sh
# End-to-end input tests of the viewer under Xvfb: scripted mouse and keyboard events (--input,
# app/viewer/input_script.h) go through ImGui's IO and the viewer's input handling.
# usage: input_tests.sh CONTACTLAB TESTS_DIR OUT_DIR CASE
set -eu
cl=$1 dir=$2 out=$3 case=$4
mkdir -p "$out"
view() {
  xvfb-run -a -s "-screen 0 1600x900x24" "$cl" view "$dir/viewer_scene.yaml" --no-settings "$@"
}
case $case in
drag)
  # Ctrl + left drag on the resting box pulls it up with the mouse spring: the cursor moves
  # 120 px up (about 0.15 m at the box) and the 3 Hz spring lifts the 1 kg box by centimetres,
  # so z ends well above the rest height 0.05 m. Without the drag it stays within 1 mm of rest.
  view --frames 60 --input "$dir/drag_box.input" --trajectory "$out/drag.csv" > "$out/drag.out"
  view --frames 60 --trajectory "$out/still.csv" > /dev/null
  grep -q 'selected body 1 (resting_box)' "$out/drag.out"
  awk -F, '$3 == "resting_box" { z = $6 } END { print "dragged z", z; exit !(z > 0.06) }' \
    "$out/drag.csv"
  awk -F, '$3 == "resting_box" { z = $6 } END { print "still z", z; exit !(z > 0.049 && z < 0.051) }' \
    "$out/still.csv"
  ;;
click)
  # A click on the ball selects it (a ray cast through the shown body poses).
  view --frames 12 --input "$dir/click_ball.input" > "$out/click.out"
  cat "$out/click.out"
  grep -q 'selected body 3 (ball)' "$out/click.out"
  ;;
keys)
  # Space at frame 10 pauses: frames 0-9 of 1/60 s at δt = 5 ms are 33 steps (0.165 s, the
  # fraction stays in the accumulator); Right at frame 20 takes exactly one more step: 34 steps,
  # t = 0.17 s, where a run without keys reaches 100 steps (t = 0.5 s) in 30 frames.
  view --frames 30 --input "$dir/pause_key.input" > "$out/keys.out"
  cat "$out/keys.out"
  grep -q ' 34 steps, t = 0.1700 s' "$out/keys.out"
  ;;
timed)
  # A timed interactive run plays in real time from the start (physics on its own thread) and
  # reports frame-time statistics at exit.
  xvfb-run -a -s "-screen 0 1600x900x24" "$cl" view "$dir/viewer_scene.yaml" --no-settings \
    --seconds 2 > "$out/timed.out"
  cat "$out/timed.out"
  grep -q 'frame time median .* ms (.* fps), p95 .* ms, max .* ms' "$out/timed.out"
  awk '/steps, t = / { for (i = 1; i <= NF; ++i) if ($i == "steps,") n = $(i - 1) }
       END { print "steps", n; exit !(n > 0) }' "$out/timed.out"
  ;;
reload)
  # Ctrl+R at frame 20 reloads the scene file and restarts it, still playing: frames 20-29 are
  # 33 steps from t = 0 (t = 0.165 s), where a run without the key ends at 100 steps (0.5 s).
  view --frames 30 --input "$dir/reload_key.input" > "$out/reload.out"
  cat "$out/reload.out"
  grep -q ' 33 steps, t = 0.1650 s' "$out/reload.out"
  ;;
resolve)
  # The timeline's re-solve of a frozen step under another contact model (R, after `set
  # contact.model lagged` in the script): the shown step keeps its recorded linear solve, bit
  # for bit (the same residual curve as in the control run), and the re-solve is a lagged solve
  # whose curve differs from it. Control: a re-solve without the model change equals the
  # recorded solve.
  view --frames 20 --input "$dir/resolve_model.input" > "$out/resolve.out"
  view --frames 20 --input "$dir/resolve_same.input" > "$out/same.out"
  cat "$out/resolve.out" "$out/same.out"
  grep -q 'viewer: shown step [0-9]*: model linear, ' "$out/resolve.out"
  grep 'viewer: shown step' "$out/resolve.out" > "$out/shown_resolve.txt"
  grep 'viewer: shown step' "$out/same.out" > "$out/shown_same.txt"
  cmp "$out/shown_resolve.txt" "$out/shown_same.txt"
  grep -q 'viewer: re-solve of step [0-9]*: model lagged, ' "$out/resolve.out"
  grep -q 'viewer: re-solve differs from the recorded solve; recorded solve unchanged' \
    "$out/resolve.out"
  grep -q 'viewer: re-solve of step [0-9]*: model linear, ' "$out/same.out"
  grep -q 'viewer: re-solve equals the recorded solve; recorded solve unchanged' "$out/same.out"
  ;;
badselect)
  # A body index beyond the scene's bodies is refused with the valid range and status 2,
  # before any window opens (no display: DISPLAY is unset).
  status=0
  env -u DISPLAY -u WAYLAND_DISPLAY "$cl" view "$dir/viewer_scene.yaml" --no-settings \
    --frames 2 --select 99 2> "$out/badselect.err" > /dev/null || status=$?
  cat "$out/badselect.err"
  test "$status" -eq 2
  grep -q -- '--select 99 is out of range \[0, 4\]' "$out/badselect.err"
  ;;
*)
  echo "unknown case $case" >&2
  exit 2
  ;;
esac
