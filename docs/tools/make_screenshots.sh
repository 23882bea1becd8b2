#!/usr/bin/env bash
# Regenerates the screenshots of docs/viewer.md from scripted viewer runs under Xvfb, cropped to
# each panel with ImageMagick (Debian package `imagemagick`). Run from the repository root after
# building: bash docs/tools/make_screenshots.sh [BUILD_DIR]
set -euo pipefail
build=${1:-build}
out=docs/images
convert_bin=${CONVERT:-/usr/bin/convert}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
view() {  # view NAME SCENE FRAMES [options...]
  local name=$1 scene=$2 frames=$3
  shift 3
  xvfb-run -a -s "-screen 0 1600x1600x24" "$build/app/contactlab" view "$scene" \
    --frames "$frames" --screenshot "$tmp/$name.png" "$@" > /dev/null
}
crop() {  # crop NAME WxH+X+Y OUT
  "$convert_bin" "$tmp/$1.png" -crop "$2" +repage "$out/$3"
}
# 1600x900 window: left column 410 px, analysis column 440 px (x >= 1160), inspector 230 px
# (y >= 670), 3D view in between.
view overview scenes/clutter_40_walls.yaml 150 --panel convergence --select 12
"$convert_bin" "$tmp/overview.png" -resize 1200x "$out/viewer_overview.png"
crop overview 440x670+1160+0 viewer_convergence.png
crop overview 1190x230+410+670 viewer_inspector.png
crop overview 750x670+410+0 viewer_contacts_3d.png
view series scenes/clutter_40_walls.yaml 150 --panel timeseries --panel profiler
crop series 440x670+1160+0 viewer_time_series.png
crop series 410x420+0+0 viewer_playback_profiler.png
view cond scenes/clutter_40_walls.yaml 150 --panel conditioning
crop cond 440x670+1160+0 viewer_conditioning.png
view left scenes/box_on_ramp.yaml 60 --panel scenes
crop left 410x900+0+0 viewer_scenes.png
view overlay scenes/box_on_ramp.yaml 60 --panel overlay
crop overlay 410x900+0+0 viewer_overlay.png
view params scenes/box_on_ramp.yaml 60 --panel parameters --height 1500
crop params 410x600+0+680 viewer_parameters.png
view export scenes/gripper.yaml 120 --panel exports --select 1
crop export 410x900+0+0 viewer_exports_selection.png
# Analysis column hidden (A) for a wider 3D view; P refits the pressure legend at frame 80.
view pressure scenes/hydro/viewer_crowd.yaml 90 --panel pressure \
  --input docs/tools/viewer_pressure.input
crop pressure 1190x900+410+0 viewer_pressure.png
view help scenes/box_stack.yaml 30 --panel help
crop help 750x670+410+0 viewer_help.png
xvfb-run -a -s "-screen 0 1600x900x24" "$build/app/contactlab" view scenes/clutter_40_walls.yaml \
  --frames 200 --compare sap,canal,pgs --panel compare --screenshot "$tmp/compare.png" > /dev/null
"$convert_bin" "$tmp/compare.png" -resize 1200x "$out/viewer_compare.png"
echo "wrote the screenshots to $out"
