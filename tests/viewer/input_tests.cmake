# End-to-end input tests of the viewer under Xvfb (see input_tests.sh for what each checks).
foreach(case drag click keys timed badselect reload resolve)
  add_test(NAME viewer_input_${case}
           COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/viewer/input_tests.sh $<TARGET_FILE:contactlab>
                   ${CMAKE_CURRENT_SOURCE_DIR}/viewer ${CMAKE_CURRENT_BINARY_DIR}/viewer_input
                   ${case})
  # Runs hold the lock `xvfb` so that concurrent xvfb-run -a never race for a display number.
  set_tests_properties(viewer_input_${case} PROPERTIES TIMEOUT 300 RESOURCE_LOCK xvfb)
endforeach()
