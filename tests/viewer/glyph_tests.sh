#!/bin/sh
# End-to-end tests of the contact glyphs under Xvfb (engine/inspect/glyph_layout.h, the legend,
# the hover tooltip and the focus of app/viewer/viewer.cc), on tests/viewer/viewer_scene.yaml.
# Scripted runs print at exit the tooltip on screen ("viewer: tooltip: ...") and the glyph counts
# ("viewer: contact glyphs: N drawn, M candidates without impulse hidden, focus F").
# usage: glyph_tests.sh CONTACTLAB CHECK_PIXELS TESTS_DIR OUT_DIR CASE
set -eu
cl=$1 check=$2 dir=$3 out=$4 case=$5
mkdir -p "$out"
view() {
  xvfb-run -a -s "-screen 0 1600x900x24" "$cl" view "$dir/viewer_scene.yaml" --no-settings "$@"
}
case $case in
hover)
  # The mouse rests on the ball's contact with the ground (just below the ball's centre on
  # screen): the tooltip shows its row. Control: the mouse on empty ground shows none.
  printf '0 move 600 200\n30-39 move_body ball 0 38\n' > "$out/hover.input"
  view --frames 40 --input "$out/hover.input" > "$out/hover.out"
  cat "$out/hover.out"
  grep -q 'viewer: tooltip: contact [0-9]*: ground / ball, stiction' "$out/hover.out"
  grep -q 'viewer: tooltip: phi .* m   v_n .* m/s' "$out/hover.out"
  grep -q 'viewer: tooltip: mu 0.6   k 5.00e+05 N/m   tau_d 1.00e-02 s' "$out/hover.out"
  grep -q 'viewer: tooltip: linear:' "$out/hover.out"
  printf '0 move 600 200\n30-39 move 1100 640\n' > "$out/nohover.input"
  view --frames 40 --input "$out/nohover.input" > "$out/nohover.out"
  ! grep -q 'viewer: tooltip:' "$out/nohover.out"
  ;;
focus)
  # With the ball selected, G focuses the glyphs on its contacts: one drawn contact (the ball
  # on the ground), against every active contact of the scene without the key.
  printf '5 key g\n' > "$out/focus.input"
  view --frames 40 --select 3 --input "$out/focus.input" > "$out/focus.out"
  view --frames 40 --select 3 > "$out/nofocus.out"
  cat "$out/focus.out" "$out/nofocus.out"
  grep -q 'contact glyphs: 1 drawn, 0 candidates without impulse hidden, focus body' "$out/focus.out"
  awk '/contact glyphs:/ { n = $4 } END { print "drawn without focus", n; exit !(n > 4) }' \
    "$out/nofocus.out"
  # A second G: the island (the ball rests on the static ground alone: still its one contact).
  printf '5 key g\n7 key g\n' > "$out/island.input"
  view --frames 40 --select 3 --input "$out/island.input" > "$out/island.out"
  grep -q 'contact glyphs: 1 drawn, .* focus island' "$out/island.out"
  ;;
legend)
  # The legend (top right of the 3D view) shows the cone saturation bar (violet to magenta)
  # and the regime swatches; `overlay.legend = false` hides it. Region: the legend's corner.
  view --frames 20 --screenshot "$out/legend.png" > "$out/legend.out"
  # It lists the glyph types drawn: here dots and both impulse arrows, with the cone bar.
  grep 'viewer: legend:' "$out/legend.out"
  grep -q 'viewer: legend: .*gamma_n (normal).*cone bar' "$out/legend.out"
  # In the pressure view of a compliant crowd the patches stand for their face contacts: no
  # contact glyph is drawn, so the legend lists no arrows, no cone bar and no scale bar.
  xvfb-run -a -s "-screen 0 1600x900x24" "$cl" view "$dir/../../scenes/hydro/viewer_crowd.yaml" \
    --no-settings --frames 60 > "$out/pressure.out"
  grep 'viewer: legend:' "$out/pressure.out"
  if grep -q 'viewer: legend: .*\(gamma\|cone bar\|scale bar\)' "$out/pressure.out"; then
    echo "the pressure view's legend lists glyphs that were not drawn"; exit 1
  fi
  printf 'overlay.legend = false\n' > "$out/nolegend.conf"
  xvfb-run -a -s "-screen 0 1600x900x24" "$cl" view "$dir/viewer_scene.yaml" \
    --settings "$out/nolegend.conf" --frames 20 --screenshot "$out/nolegend.png" > /dev/null
  "$check" "$out/legend.png" --size 1600 900 --region 900 0 1160 260 \
    --at-least 150 148,107,255:255,71,191 6 --at-least 20 38,204,128 6
  "$check" "$out/nolegend.png" --size 1600 900 --region 900 0 1160 260 \
    --at-most 0 148,107,255:255,71,191 6
  ;;
*)
  echo "unknown case $case"; exit 2
  ;;
esac
