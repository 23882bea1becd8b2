# End-to-end tests of the contact glyphs under Xvfb (see glyph_tests.sh for what each checks).
foreach(case hover focus legend)
  add_test(NAME viewer_glyphs_${case}
           COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/viewer/glyph_tests.sh $<TARGET_FILE:contactlab>
                   $<TARGET_FILE:check_pixels> ${CMAKE_CURRENT_SOURCE_DIR}/viewer
                   ${CMAKE_CURRENT_BINARY_DIR}/viewer_glyphs ${case})
  set_tests_properties(viewer_glyphs_${case} PROPERTIES TIMEOUT 300 RESOURCE_LOCK xvfb)
endforeach()
