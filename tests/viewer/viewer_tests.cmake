# Scripted viewer runs under Xvfb whose screenshots are checked pixel by pixel with check_pixels:
# the analysis column's tabs, the selected body's frame, and the settings file kept between runs.
# Included from tests/CMakeLists.txt when xvfb-run, contactlab and the viewer test scene exist
# (XVFB_RUN and VIEWER_SCREENSHOT_SCENE are set there).
#
# Every run takes 40 frames of tests/viewer/viewer_scene.yaml (5 for the settings runs) in a
# 1600x900 window, whose layout is: left column x in [0, 410), analysis column x in [1160, 1600)
# down to the contact table, contact table y in [670, 900), 3D viewport [410, 1160) x [0, 670).
# Runs hold the lock `xvfb` so that xvfb-run -a never races for a display number.

add_executable(check_pixels ${CMAKE_CURRENT_SOURCE_DIR}/viewer/check_pixels.cc)
target_include_directories(check_pixels PRIVATE ${PROJECT_SOURCE_DIR})

set(VT_DIR ${CMAKE_CURRENT_BINARY_DIR}/viewer_tests)
file(MAKE_DIRECTORY ${VT_DIR})
set(VT_VIEW ${XVFB_RUN} -a -s "-screen 0 1600x900x24" $<TARGET_FILE:contactlab> view
            ${VIEWER_SCREENSHOT_SCENE})

# Regions (X0 Y0 X1 Y1, y down).
set(VT_VIEWPORT 410 0 1160 670)
# The viewport without the glyph legend's top-right corner (whose swatches carry the glyph
# colours), as two regions: left of the legend, and below it.
set(VT_VIEWPORT_LEFT 410 0 900 670)
set(VT_VIEWPORT_BELOW 900 320 1160 670)
set(VT_ANALYSIS 1160 0 1600 670)

# Colours (R,G,B or a ramp R,G,B:R,G,B) and how close a pixel must be (per channel).
# Filled cells of the sparsity images, SparsityCellColor in ui/plot_data.cc. Tight: anti-aliased
# grey text lies within 4 or more of the middle of this ramp.
set(VT_SPARSITY 60,110,210:255,225,90)
set(VT_SPARSITY_TOL 2)
# kSeries in ui/analysis_panels.cc: the e_m curve, the time series, the eigenvalue spectrum.
set(VT_SERIES 110,190,255)
set(VT_SERIES_TOL 6)
# The selected body's frame at its centre of mass (RenderScene in app/viewer/viewer.cc): lit
# arrows of kAxisXColor (0.95, 0.2, 0.2), kAxisYColor (0.35, 0.95, 0.25), kAxisZColor (0.15,
# 0.25, 0.95) (engine/inspect/colormap.h), so each axis is a ramp from its shaded to its lit
# colour. The blue ramp is narrowed to its bright part, clear of the ground's shades.
set(VT_AXIS_X 104,22,22:242,51,51)
set(VT_AXIS_Y 38,104,27:89,242,64)
set(VT_AXIS_Z 24,40,151:38,64,242)
set(VT_AXIS_TOL 8)
# resting_box, colour (0.85, 0.45, 0.30), lit from dark to bright when opaque; drawn transparent
# it is blended with the ground and none of its pixels is near this ramp.
set(VT_BOX 87,46,31:255,135,90)
set(VT_BOX_TOL 12)

# viewer_shot(NAME VIEWER_OPTIONS...): test viewer_NAME writes VT_DIR/NAME.png (removed first, so
# a failed run never leaves an old image to check); fixture viewer_NAME_png.
function(viewer_shot name)
  set(png ${VT_DIR}/${name}.png)
  add_test(NAME viewer_${name}
           COMMAND sh -c "rm -f \"$0\" && exec \"$@\"" ${png} ${VT_VIEW} --frames 40
                   --screenshot ${png} ${ARGN})
  set_tests_properties(viewer_${name} PROPERTIES FIXTURES_SETUP viewer_${name}_png TIMEOUT 300
                       RESOURCE_LOCK xvfb)
endfunction()

# viewer_pixels(TEST SHOT CHECKS...): check_pixels on VT_DIR/SHOT.png, a 1600x900 image.
function(viewer_pixels name shot)
  add_test(NAME ${name} COMMAND check_pixels ${VT_DIR}/${shot}.png --size 1600 900 ${ARGN})
  set_tests_properties(${name} PROPERTIES FIXTURES_REQUIRED viewer_${shot}_png)
endfunction()

viewer_shot(tab_convergence --panel convergence)
viewer_shot(tab_timeseries --panel timeseries)
viewer_shot(tab_conditioning --panel conditioning)
viewer_shot(select_body --select 1)  # resting_box
# The step shown at frame 10 re-solved under the lagged model (tests/viewer/resolve_model.input).
viewer_shot(resolve_model --panel convergence --input
            ${CMAKE_CURRENT_SOURCE_DIR}/viewer/resolve_model.input)

# Conditioning tab: the sparsity images of H and J (textures) fill the analysis column with the
# filled-cell colours; on the other tabs those colours are (almost) absent.
viewer_pixels(viewer_conditioning_shows_sparsity tab_conditioning
              --region ${VT_ANALYSIS} --at-least 2000 ${VT_SPARSITY} ${VT_SPARSITY_TOL})
viewer_pixels(viewer_convergence_has_no_sparsity tab_convergence
              --region ${VT_ANALYSIS} --at-most 200 ${VT_SPARSITY} ${VT_SPARSITY_TOL})
viewer_pixels(viewer_timeseries_has_no_sparsity tab_timeseries
              --region ${VT_ANALYSIS} --at-most 200 ${VT_SPARSITY} ${VT_SPARSITY_TOL})

# Convergence tab: the e_m curve (upper plot) and the cost gap (middle plot) in the series colour.
viewer_pixels(viewer_convergence_plot_lines tab_convergence
              --region ${VT_ANALYSIS} --at-least 400 ${VT_SERIES} ${VT_SERIES_TOL}
              --region 1160 100 1600 290 --at-least 150 ${VT_SERIES} ${VT_SERIES_TOL}
              --region 1160 290 1600 440 --at-least 60 ${VT_SERIES} ${VT_SERIES_TOL})
# The re-solve's curves (kResolved in ui/analysis_panels.cc, orange, dashed with square markers)
# on the convergence tab after a re-solve; the control without a re-solve has (almost) none.
set(VT_RESOLVED 255,150,60)
set(VT_RESOLVED_TOL 6)
viewer_pixels(viewer_convergence_draws_the_resolve resolve_model
              --region ${VT_ANALYSIS} --at-least 150 ${VT_RESOLVED} ${VT_RESOLVED_TOL})
viewer_pixels(viewer_convergence_without_resolve_has_none tab_convergence
              --region ${VT_ANALYSIS} --at-most 20 ${VT_RESOLVED} ${VT_RESOLVED_TOL})
# Time series tab: six plots, three in each half of the column, each half with its lines.
viewer_pixels(viewer_timeseries_plot_lines tab_timeseries
              --region ${VT_ANALYSIS} --at-least 1000 ${VT_SERIES} ${VT_SERIES_TOL}
              --region 1160 0 1600 335 --at-least 300 ${VT_SERIES} ${VT_SERIES_TOL}
              --region 1160 335 1600 670 --at-least 300 ${VT_SERIES} ${VT_SERIES_TOL})

# --select: the body's red, green and blue axes in the viewport; none of them without it.
# (Measured 2026-11-23: with --select 1, 480 / 375 / 849 pixels; without, 0 / 0 / 280.
# 2026-11-27, with the colours of kAxis*Color, outside the legend's corner (whose axis swatches
# add 52 each): 568 / 349 / 610; without, 0 / 0 / 0: the cones are no longer blue.)
viewer_pixels(viewer_select_draws_frame select_body
              --region ${VT_VIEWPORT_LEFT} --at-least 150 ${VT_AXIS_X} ${VT_AXIS_TOL}
              --at-least 150 ${VT_AXIS_Y} ${VT_AXIS_TOL} --at-least 300 ${VT_AXIS_Z} ${VT_AXIS_TOL})
viewer_pixels(viewer_no_select_no_frame tab_convergence
              --region ${VT_VIEWPORT} --at-most 20 ${VT_AXIS_X} ${VT_AXIS_TOL}
              --at-most 20 ${VT_AXIS_Y} ${VT_AXIS_TOL} --at-most 40 ${VT_AXIS_Z} ${VT_AXIS_TOL})
# Bodies are opaque by default (the control of the transparency check below).
viewer_pixels(viewer_bodies_opaque_by_default tab_convergence
              --region ${VT_VIEWPORT} --at-least 1500 ${VT_BOX} ${VT_BOX_TOL})

# Settings kept between scripted runs. The first run writes its --settings file (in a folder that
# does not exist yet) at exit, with --transparent recorded, and ImGui's imgui.ini beside it.
set(VT_SET ${VT_DIR}/settings)
add_test(NAME viewer_settings_written_at_exit COMMAND sh -c
  "rm -rf '${VT_SET}' && \"$@\" --frames 5 --settings '${VT_SET}/conf/s.conf' --transparent || exit 1
   cat '${VT_SET}/conf/s.conf'
   grep -qx 'overlay.transparent_bodies = true' '${VT_SET}/conf/s.conf' ||
     { echo 'no overlay.transparent_bodies = true in the settings file'; exit 1; }
   test -f '${VT_SET}/conf/imgui.ini' || { echo 'no imgui.ini beside the settings file'; exit 1; }"
  sh ${VT_VIEW})
# The second run reads it: no --transparent, yet bodies are drawn transparent, and the file it
# writes back still says so.
add_test(NAME viewer_settings_read_at_start COMMAND sh -c
  "rm -f '${VT_SET}/second.png' && \"$@\" --frames 5 --settings '${VT_SET}/conf/s.conf' \
     --screenshot '${VT_SET}/second.png' || exit 1
   grep -qx 'overlay.transparent_bodies = true' '${VT_SET}/conf/s.conf' ||
     { echo 'overlay.transparent_bodies lost on the second run'; exit 1; }"
  sh ${VT_VIEW})
add_test(NAME viewer_settings_second_run_transparent
         COMMAND check_pixels ${VT_SET}/second.png --size 1600 900
                 --region ${VT_VIEWPORT} --at-most 100 ${VT_BOX} ${VT_BOX_TOL})
set_tests_properties(viewer_settings_written_at_exit viewer_settings_read_at_start PROPERTIES
                     TIMEOUT 300 RESOURCE_LOCK xvfb)
set_tests_properties(viewer_settings_written_at_exit PROPERTIES FIXTURES_SETUP viewer_settings)
set_tests_properties(viewer_settings_read_at_start PROPERTIES FIXTURES_REQUIRED viewer_settings
                     FIXTURES_SETUP viewer_settings_second_png)
set_tests_properties(viewer_settings_second_run_transparent PROPERTIES
                     FIXTURES_REQUIRED "viewer_settings;viewer_settings_second_png")

# A settings file with bad lines: each is named on stderr (file and line), the run goes on with
# the good lines and exits 0.
add_test(NAME viewer_settings_bad_line_warns COMMAND sh -c
  "rm -rf '${VT_DIR}/bad_settings' && mkdir -p '${VT_DIR}/bad_settings' || exit 1
   f='${VT_DIR}/bad_settings/s.conf'; e='${VT_DIR}/bad_settings/err.txt'
   printf 'overlay.labels = true\\nthis line has no equals sign\\noverlay.point_size = 500\\n' > \"$f\"
   \"$@\" --frames 3 --settings \"$f\" 2> \"$e\"; rc=$?; cat \"$e\"
   test $rc -eq 0 || { echo \"exit status $rc\"; exit 1; }
   grep -q 's.conf: line 2: .*this line has no equals sign' \"$e\" &&
   grep -q 's.conf: line 3: overlay.point_size' \"$e\" || { echo 'bad lines not reported'; exit 1; }
   grep -qx 'overlay.labels = true' \"$f\" || { echo 'good line lost'; exit 1; }"
  sh ${VT_VIEW})
# --no-settings wins over --settings: that file is neither read nor written.
add_test(NAME viewer_no_settings_writes_nothing COMMAND sh -c
  "rm -rf '${VT_DIR}/no_settings' && \"$@\" --frames 3 --no-settings \
     --settings '${VT_DIR}/no_settings/s.conf' || exit 1
   test ! -e '${VT_DIR}/no_settings' || { echo 'settings written despite --no-settings'; exit 1; }"
  sh ${VT_VIEW})
set_tests_properties(viewer_settings_bad_line_warns viewer_no_settings_writes_nothing PROPERTIES
                     TIMEOUT 300 RESOURCE_LOCK xvfb)
# scenes/ball_drop.yaml after 19 frames (t = 0.316 s): the left ball (τ_d = 10 ms) is braked
# about 1.7 cm above the floor by SAP's damping term, so its contact is loaded at φ > 0 and drawn
# with a ring of kGapLoadColor (engine/inspect/colormap.h, 0, 0.95, 1; flat, unlit points). After
# 10 frames (t = 0.17 s) both balls are 0.36 m up with no contact: no ring pixels (the legend's
# ring swatch, top right of the view, is outside the region checked).
set(VT_GAP_LOAD 0,242,255)
set(VT_GAP_LOAD_TOL 8)
foreach(frames 19 10)
  set(png ${VT_DIR}/ball_drop_${frames}.png)
  add_test(NAME viewer_ball_drop_${frames}
           COMMAND sh -c "rm -f \"$0\" && exec \"$@\"" ${png} ${XVFB_RUN} -a
                   -s "-screen 0 1600x900x24" $<TARGET_FILE:contactlab> view
                   ${PROJECT_SOURCE_DIR}/scenes/ball_drop.yaml --frames ${frames}
                   --screenshot ${png})
  set_tests_properties(viewer_ball_drop_${frames} PROPERTIES
                       FIXTURES_SETUP viewer_ball_drop_${frames}_png TIMEOUT 300
                       RESOURCE_LOCK xvfb)
endforeach()
viewer_pixels(viewer_gap_load_ring_shown ball_drop_19
              --region ${VT_VIEWPORT_LEFT} --at-least 20 ${VT_GAP_LOAD} ${VT_GAP_LOAD_TOL})
viewer_pixels(viewer_gap_load_ring_absent_in_flight ball_drop_10
              --region ${VT_VIEWPORT_LEFT} --at-most 0 ${VT_GAP_LOAD} ${VT_GAP_LOAD_TOL}
              --region ${VT_VIEWPORT_BELOW} --at-most 0 ${VT_GAP_LOAD} ${VT_GAP_LOAD_TOL})

# Compare mode (--compare, app/viewer/compare_session.h). A second configuration whose sliding box
# meets more friction (pairs.0.friction=0.5) stops it earlier: its ghost, tinted in CompareColor(1)
# (255, 96, 160; ui/compare_data.cc), sits where the primary's box is not. The ghost's rim is the
# unlit tint; its see-through body over the grey ground a muted rose. The control without
# --compare (tab_convergence) has no rim pixels and few of the rose (the cones' translucent violet).
# (Measured 2026-11-26: 284 rim and 17963 body pixels; the control 0 and 534. In the analysis
# column 1940 blue and 1437 rose pixels. 2026-11-27, with the glyph legend in the top-right
# corner, whose cone bar reaches the rim's colour: rim pixels counted below and left of it, 291
# below it, where the ghost is.)
viewer_shot(compare_ghosts --compare sap,sap:pairs.0.friction=0.5 --panel compare)
set(VT_GHOST_RIM 255,96,160)
set(VT_GHOST_RIM_TOL 30)
set(VT_GHOST_BODY 115,85,120:150,100,140)
set(VT_GHOST_BODY_TOL 8)
viewer_pixels(viewer_compare_draws_ghosts compare_ghosts
              --region ${VT_VIEWPORT_BELOW} --at-least 120 ${VT_GHOST_RIM} ${VT_GHOST_RIM_TOL}
              --region ${VT_VIEWPORT} --at-least 5000 ${VT_GHOST_BODY} ${VT_GHOST_BODY_TOL})
viewer_pixels(viewer_no_compare_no_ghosts tab_convergence
              --region ${VT_VIEWPORT_LEFT} --at-most 20 ${VT_GHOST_RIM} ${VT_GHOST_RIM_TOL}
              --at-most 1500 ${VT_GHOST_BODY} ${VT_GHOST_BODY_TOL}
              --region ${VT_VIEWPORT_BELOW} --at-most 20 ${VT_GHOST_RIM} ${VT_GHOST_RIM_TOL}
              --at-most 1500 ${VT_GHOST_BODY} ${VT_GHOST_BODY_TOL})
# The compare tab overlays each configuration's series in its colour: the primary's blue and the
# second configuration's rose in the analysis column; the control's column has no rose.
set(VT_COMPARE_1 255,96,160)
set(VT_COMPARE_1_TOL 6)
viewer_pixels(viewer_compare_tab_overlays_series compare_ghosts
              --region ${VT_ANALYSIS} --at-least 500 ${VT_SERIES} ${VT_SERIES_TOL}
              --at-least 500 ${VT_COMPARE_1} ${VT_COMPARE_1_TOL})
viewer_pixels(viewer_convergence_has_no_compare_colour tab_convergence
              --region ${VT_ANALYSIS} --at-most 10 ${VT_COMPARE_1} ${VT_COMPARE_1_TOL})

# A reload (Ctrl+R at frame 3, tests/viewer/reload_early.input) restarts every configuration on
# the reloaded scene with its CONFIG applied again: the ghost keeps its friction of 0.5 and its
# box stops half a metre from the primary's (measured 2026-11-27: 0.502 m after 190 steps; with
# the scene's own materials the two runs are identical, distance 0).
add_test(NAME viewer_compare_reload_keeps_materials
         COMMAND sh -c "\"$@\" > \"$0\" || exit 1
           cat \"$0\"
           d=$(sed -n 's/^viewer: compare 1 .*, max \\([0-9.e+-]*\\) m at step.*/\\1/p' \"$0\")
           test -n \"$d\" && awk -v d=\"$d\" 'BEGIN { exit !(d > 0.1) }' ||
             { echo \"ghost distance $d m, expected > 0.1 m\"; exit 1; }"
                 ${VT_DIR}/compare_reload.txt ${VT_VIEW} --frames 60
                 --compare sap,sap:pairs.0.friction=0.5
                 --input ${CMAKE_CURRENT_SOURCE_DIR}/viewer/reload_early.input)
set_tests_properties(viewer_compare_reload_keeps_materials PROPERTIES TIMEOUT 300
                     RESOURCE_LOCK xvfb)

# --panel race: the step shown at the last frame raced by both configurations (SAP, and SAP with a
# tighter tolerance), the work-precision diagrams drawn with a curve in each colour; the run
# prints both configurations at the same step count (lockstep) and the race's curves.
# (Measured 2026-11-26: 947 blue and 546 rose pixels in the plots.)
set(png ${VT_DIR}/race.png)
add_test(NAME viewer_race
         COMMAND sh -c "out=$1; shift; rm -f \"$out\" && \"$@\" > \"$out.txt\" || exit 1
           cat \"$out.txt\"
           steps0=$(sed -n 's/^viewer: compare 0 .*: \\([0-9]*\\) steps,.*/\\1/p' \"$out.txt\")
           steps1=$(sed -n 's/^viewer: compare 1 .*: \\([0-9]*\\) steps,.*/\\1/p' \"$out.txt\")
           test -n \"$steps0\" && test \"$steps0\" = \"$steps1\" || { echo 'not in lockstep'; exit 1; }
           grep -q '^viewer: race on step [0-9]* ([0-9]* constraints' \"$out.txt\" &&
           grep -q '^viewer: race SAP: [0-9]* points, best ncp residual' \"$out.txt\" &&
           grep -q '^viewer: race SAP (rel_tolerance=1e-10): [0-9]* points' \"$out.txt\""
                 sh ${png} ${XVFB_RUN} -a -s "-screen 0 1600x900x24" $<TARGET_FILE:contactlab>
                 view ${PROJECT_SOURCE_DIR}/scenes/clutter_40_walls.yaml --frames 40
                 --compare sap,sap:solver.rel_tolerance=1e-10 --panel race --screenshot ${png})
set_tests_properties(viewer_race PROPERTIES FIXTURES_SETUP viewer_race_png TIMEOUT 300
                     RESOURCE_LOCK xvfb)
viewer_pixels(viewer_race_draws_both_curves race
              --region 1160 60 1600 600 --at-least 300 ${VT_SERIES} ${VT_SERIES_TOL}
              --at-least 150 ${VT_COMPARE_1} ${VT_COMPARE_1_TOL})

# Pressure-field contact: scenes/hydro/box_on_floor.yaml after 40 frames, its patch drawn under
# the box (filled faces, unlit, in the lime map of engine/inspect/colormap.h; the box rests with
# a nearly uniform pressure, so most faces take the top of the held range). The region is the
# middle of the 3D view around the patch, clear of the pressure legend in its bottom-left corner
# (whose colour bar has the same colours). Controls: the same scene with --no-pressure, and
# scenes/box_on_ramp.yaml without compliant geometry, show none of them there.
# (Measured 2026-11-27: 27179 pixels of the top segment in the region; 0 in both controls.)
# The lime map's two upper segments (kLimeMapPoints[2..4] x 255) and its lower half.
set(VT_LIME_HI 128,163,18:173,214,46)
set(VT_LIME_TOP 173,214,46:222,250,133)
set(VT_LIME_LOW 43,56,8:128,163,18)
set(VT_LIME_TOL 6)
set(VT_PATCH_REGION 600 150 1010 560)
foreach(run pressure no_pressure control)
  set(png ${VT_DIR}/hydro_${run}.png)
  if(run STREQUAL "control")
    set(scene ${PROJECT_SOURCE_DIR}/scenes/box_on_ramp.yaml)
    set(extra "")
  else()
    set(scene ${PROJECT_SOURCE_DIR}/scenes/hydro/box_on_floor.yaml)
    set(extra "")
    if(run STREQUAL "no_pressure")
      set(extra --no-pressure)
    endif()
  endif()
  add_test(NAME viewer_hydro_${run}
           COMMAND sh -c "rm -f \"$0\" && exec \"$@\"" ${png} ${XVFB_RUN} -a
                   -s "-screen 0 1600x900x24" $<TARGET_FILE:contactlab> view ${scene}
                   --frames 40 --screenshot ${png} ${extra})
  set_tests_properties(viewer_hydro_${run} PROPERTIES FIXTURES_SETUP viewer_hydro_${run}_png
                       TIMEOUT 300 RESOURCE_LOCK xvfb)
endforeach()
viewer_pixels(viewer_pressure_patch_coloured hydro_pressure
              --region ${VT_PATCH_REGION}
              --at-least 2000 ${VT_LIME_TOP} ${VT_LIME_TOL})
viewer_pixels(viewer_pressure_hidden_no_colours hydro_no_pressure
              --region ${VT_PATCH_REGION}
              --at-most 0 ${VT_LIME_TOP} ${VT_LIME_TOL}
              --at-most 0 ${VT_LIME_HI} ${VT_LIME_TOL})
viewer_pixels(viewer_pressure_control_no_colours hydro_control
              --region ${VT_VIEWPORT}
              --at-most 0 ${VT_LIME_TOP} ${VT_LIME_TOL}
              --at-most 0 ${VT_LIME_HI} ${VT_LIME_TOL}
              --at-most 0 ${VT_LIME_LOW} ${VT_LIME_TOL})

# Instanced glyphs in a GL 3.3 core context (GlDebugDraw alone, a 400x400 window): the arrow,
# thick arrow, cone, point and line pixels where the camera projects them, one draw call per
# glyph kind for a frame of 4000 arrows and 1000 cones, no buffer growth when a frame repeats.
pkg_check_modules(GLYPH_CHECK_GLFW REQUIRED IMPORTED_TARGET glfw3)
add_executable(glyph_draw_check ${CMAKE_CURRENT_SOURCE_DIR}/viewer/glyph_draw_check.cc)
target_link_libraries(glyph_draw_check PRIVATE contactlab_render PkgConfig::GLYPH_CHECK_GLFW)
add_test(NAME viewer_glyphs_instanced
         COMMAND ${XVFB_RUN} -a -s "-screen 0 640x480x24" $<TARGET_FILE:glyph_draw_check>
                 ${VT_DIR}/glyphs_instanced.png)
set_tests_properties(viewer_glyphs_instanced PROPERTIES TIMEOUT 120 RESOURCE_LOCK xvfb)
