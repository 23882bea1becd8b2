# End-to-end layout, camera and scripted-timeline tests of the viewer under Xvfb (see
# layout_tests.sh for what each checks).
foreach(case panels no_scene bad_scene scrub step held_key camera axes)
  add_test(NAME viewer_layout_${case}
           COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/viewer/layout_tests.sh $<TARGET_FILE:contactlab>
                   ${CMAKE_CURRENT_SOURCE_DIR}/viewer ${CMAKE_CURRENT_BINARY_DIR}/viewer_layout
                   ${case} $<TARGET_FILE:check_pixels>)
  # Runs hold the lock `xvfb` so that concurrent xvfb-run -a never race for a display number.
  set_tests_properties(viewer_layout_${case} PROPERTIES TIMEOUT 300 RESOURCE_LOCK xvfb)
endforeach()
