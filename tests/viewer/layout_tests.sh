#!/bin/sh
# End-to-end layout, camera and scripted-timeline tests of the viewer under Xvfb, read from its
# --print-layout lines (windows, left-column sections and the camera at exit) and its exit
# summary (steps, the shown step and its re-solve).
# usage: layout_tests.sh CONTACTLAB TESTS_DIR OUT_DIR CASE CHECK_PIXELS
set -eu
cl=$1 dir=$2 out=$3 case=$4 check_pixels=$5
mkdir -p "$out"
xvfb() { xvfb-run -a -s "-screen 0 1600x900x24" "$@"; }
view() { xvfb "$cl" view "$dir/viewer_scene.yaml" --no-settings "$@"; }
# on_screen FILE SECTION: the whole section shows in the 900 px window: its header on screen
# and the next section's header (where it ends) at most at the window's bottom, or, for a section
# taller than the window, its header at the column's top.
on_screen() {
  grep "viewer: layout section \"$2\" " "$1" || { echo "no section $2"; exit 1; }
  grep 'viewer: layout section ' "$1" | awk -v name="\"$2\"" '
    found && !done { end = $(NF - 3); done = 1 }
    index($0, "section " name " ") { found = 1; top = $(NF - 3); ok = $NF == "on-screen" }
    END { if (!done) end = 0; print "top", top, "end", end;
          exit !(found && ok && top >= 0 && (end <= 900 || top <= 40)) }' ||
    { echo "section $2 is not whole on screen"; exit 1; }
}
case $case in
panels)
  # Every left-column panel opened by --panel is scrolled into view at 1600x900 (the parameters,
  # last in the column, used to open below the fold), also on the clutter with a body selected
  # (its panel above the solver's); the analysis column and the help window are on screen.
  for p in parameters:Parameters overlay:"Contact overlay" pressure:Pressure scenes:Scenes \
           exports:Export profiler:"Frame profile"; do
    panel=${p%%:*} section=${p#*:}
    view --frames 12 --panel "$panel" --print-layout > "$out/panel_$panel.out"
    on_screen "$out/panel_$panel.out" "$section"
  done
  xvfb "$cl" view "$dir/../../scenes/clutter_40_walls.yaml" --no-settings --frames 12 \
    --panel parameters --select 3 --print-layout > "$out/panel_clutter.out"
  on_screen "$out/panel_clutter.out" Parameters
  # Control: without --panel the parameters header lies below the fold.
  view --frames 12 --print-layout > "$out/panel_none.out"
  grep 'viewer: layout section "Parameters" ' "$out/panel_none.out" | grep -q 'off-screen'
  view --frames 3 --panel help --panel convergence --print-layout > "$out/panel_help.out"
  grep -q 'viewer: layout window "Keyboard and mouse" .* on-screen' "$out/panel_help.out"
  grep -q 'viewer: layout window "Analysis" .* on-screen' "$out/panel_help.out"
  ;;
no_scene)
  # Without a scene: the default scene of the scenes folder (here the only one) with the scene
  # browser open; without a scenes folder: exit 2 with a message.
  # (The folder without scenes is made outside the source tree, whose scenes/ it would find.)
  empty=$(mktemp -d /tmp/contactlab_no_scenes.XXXXXX)
  trap 'rm -rf "$empty"' EXIT
  rm -rf "$out/ns" && mkdir -p "$out/ns/scenes" "$out/ns/sub"
  cp "$dir/viewer_scene.yaml" "$out/ns/scenes/only.yaml"
  (cd "$out/ns/sub" && xvfb "$cl" view --no-settings --frames 3 --print-layout) > "$out/ns.out"
  cat "$out/ns.out"
  grep -q 'viewer: no scene given: opening .*/ns/scenes/only.yaml' "$out/ns.out"
  on_screen "$out/ns.out" Scenes
  status=0
  (cd "$empty" && env -u DISPLAY "$cl" view --no-settings --frames 3) 2> "$out/empty.err" ||
    status=$?
  cat "$out/empty.err"
  test "$status" -eq 2
  grep -q 'no scene given and no scenes folder' "$out/empty.err"
  ;;
bad_scene)
  # A scene with an error: an interactive run (here a timed one) prints it and opens the default
  # scene with the browser showing it; a scripted run exits 2 with the same message.
  rm -rf "$out/bad" && mkdir -p "$out/bad/scenes"
  cp "$dir/viewer_scene.yaml" "$out/bad/scenes/clutter_40_walls.yaml"
  printf 'time_step: 0.01\nbodies:\n  - {name: b, mass: -1, geoms: [{shape: sphere}]}\n' \
    > "$out/bad/broken.yaml"
  (cd "$out/bad" && xvfb "$cl" view broken.yaml --no-settings --seconds 1 --print-layout) \
    > "$out/bad.out" 2> "$out/bad.err"
  cat "$out/bad.out" "$out/bad.err"
  grep -q 'broken.yaml' "$out/bad.err"
  grep -q 'viewer: scene browser shows the error: .*broken.yaml' "$out/bad.out"
  on_screen "$out/bad.out" Scenes
  status=0
  (cd "$out/bad" && env -u DISPLAY "$cl" view broken.yaml --no-settings --frames 3) \
    2> "$out/bad_scripted.err" > /dev/null || status=$?
  test "$status" -eq 2
  cmp "$out/bad.err" "$out/bad_scripted.err"
  ;;
scrub)
  # Pause, scrub back to step 3 and re-solve it: the run ends showing step 3 and its re-solve,
  # which equals the recorded solve. Control: the same run without the script shows its newest
  # step.
  view --frames 14 --input "$dir/scrub_resolve.input" > "$out/scrub.out"
  view --frames 14 > "$out/noscrub.out"
  cat "$out/scrub.out"
  grep -q 'viewer: shown step 3: model linear' "$out/scrub.out"
  grep -q 'viewer: re-solve of step 3: ' "$out/scrub.out"
  grep -q 'viewer: re-solve equals the recorded solve; recorded solve unchanged' "$out/scrub.out"
  ! grep -q 'viewer: shown step 3:' "$out/noscrub.out"
  ;;
step)
  # Pause at frame 5 (frames 0-4: 16 steps of 5 ms, 1/60 s each), then `step 4`: 20 steps.
  view --frames 10 --input "$dir/step_n.input" > "$out/step.out"
  cat "$out/step.out"
  grep -q ' 20 steps, t = 0.1000 s' "$out/step.out"
  ;;
held_key)
  # Space at frame 5 pauses after 16 steps; Right held over frames 10-14 takes 5: 21 steps.
  view --frames 20 --input "$dir/held_key.input" > "$out/held.out"
  cat "$out/held.out"
  grep -q ' 21 steps, t = 0.1050 s' "$out/held.out"
  ;;
camera)
  # 1 (front) then 3 (top) then Shift+C with the box selected: the camera looks down and
  # follows the box's centre of mass (0, 0, 0.05) within a millimetre 70 frames later.
  view --frames 80 --select 1 --input "$dir/camera_keys.input" --print-layout > "$out/camera.out"
  cat "$out/camera.out"
  grep -q 'azimuth -90.00 elevation 89.94 deg, follow selected body' "$out/camera.out"
  grep 'viewer: camera target' "$out/camera.out" |
    awk '{ x = $4; y = $5; z = $6; d = sqrt(x * x + y * y + (z - 0.05) ^ 2); print "off by", d;
           exit !(d < 1e-3) }'
  view --frames 4 --input "$dir/camera_keys.input" --print-layout > "$out/camera_front.out"
  grep -q 'azimuth -90.00 elevation 0.00 deg, follow off' "$out/camera_front.out"
  ;;
axes)
  # The world axes gizmo in the 3D view's bottom-right corner: its red x, green y and blue z
  # lines (colours no body or glyph of this scene has in that corner).
  view --frames 5 --screenshot "$out/axes.png"
  "$check_pixels" "$out/axes.png" --size 1600 900 --region 1060 570 1160 670 \
    --at-least 20 250,95,80 12 --at-least 20 90,210,90 12 --at-least 20 90,140,255 12
  ;;
*)
  echo "unknown case $case" >&2
  exit 2
  ;;
esac
