# End-to-end video tests of the viewer (see video_tests.sh for what each checks): recordings
# under Xvfb decoded with ffprobe (skipped, exit 77, without Debian's ffmpeg), ffmpeg missing
# (--video and the key V) and ffmpeg dying mid-run.
foreach(case cli key missing key_missing write_error)
  add_test(NAME viewer_video_${case}
           COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/viewer/video_tests.sh $<TARGET_FILE:contactlab>
                   ${CMAKE_CURRENT_SOURCE_DIR}/viewer ${CMAKE_CURRENT_BINARY_DIR}/viewer_video
                   ${case})
  # Runs hold the lock `xvfb` so that concurrent xvfb-run -a never race for a display number.
  set_tests_properties(viewer_video_${case} PROPERTIES TIMEOUT 300 RESOURCE_LOCK xvfb
                       SKIP_RETURN_CODE 77)
endforeach()
