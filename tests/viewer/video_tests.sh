#!/bin/sh
# End-to-end video tests of the viewer (app/viewer/video_recorder.h): recordings under Xvfb
# decoded with ffprobe, and the failures (ffmpeg missing, ffmpeg dying mid-run).
# usage: video_tests.sh CONTACTLAB TESTS_DIR OUT_DIR CASE
# Exit 77 (ctest: skipped) when ffmpeg or ffprobe is missing for a case that needs them.
set -eu
cl=$1 dir=$2 out=$3 case=$4
mkdir -p "$out"
view() {
  xvfb-run -a -s "-screen 0 1600x900x24" "$cl" view "$dir/viewer_scene.yaml" --no-settings "$@"
}
need_ffmpeg() {
  for p in ffmpeg ffprobe; do
    if ! command -v $p > /dev/null 2>&1; then
      echo "SKIP: $p not found (Debian package ffmpeg)"
      exit 77
    fi
  done
}
# codec,width,height,frames of FILE's video stream, every frame decoded.
probe() {
  ffprobe -v error -count_frames -select_streams v:0 \
    -show_entries stream=nb_read_frames,width,height,codec_name -of csv=p=0 "$1"
}
case $case in
cli)
  # 30 frames of an odd 1001x601 window: H.264 of the even-rounded 1000x600, every frame in the
  # file; the screenshot of the last frame is still written beside it.
  need_ffmpeg
  rm -f "$out/cli.mp4" "$out/cli.png"
  view --frames 30 --width 1001 --height 601 --video "$out/cli.mp4" --screenshot "$out/cli.png" \
    > "$out/cli.out"
  cat "$out/cli.out"
  # viewer_scene.yaml: δt = 5 ms, 3 steps per frame, 1 / 15 ms = 66.67 fps (real time).
  grep -q 'recording .*cli.mp4, 1000x600 at 66.6667 fps (3 steps of 0.005 s per frame)' \
    "$out/cli.out"
  grep -q ' 90 steps, t = 0.4500 s' "$out/cli.out"
  test -s "$out/cli.png"
  got=$(probe "$out/cli.mp4")
  echo "ffprobe: $got"
  test "$got" = "h264,1000,600,30"
  rate=$(ffprobe -v error -select_streams v:0 -show_entries stream=avg_frame_rate -of csv=p=0 \
    "$out/cli.mp4")
  echo "avg_frame_rate: $rate"
  test "$rate" = "200/3"
  ;;
key)
  # The key V at frame 2 starts a recording (contactlab_<scene>_<date-time>.mp4 in the working
  # directory), V at frame 21 stops it: frames 2 to 20 are in the file.
  need_ffmpeg
  rm -rf "$out/key" && mkdir -p "$out/key"
  printf '2 key v\n21 key v\n' > "$out/key/toggle.input"
  (cd "$out/key" && view --frames 30 --width 800 --height 600 --input toggle.input) \
    > "$out/key.out"
  cat "$out/key.out"
  set -- "$out"/key/contactlab_viewer_scene_*.mp4
  test $# -eq 1 && test -f "$1"
  got=$(probe "$1")
  echo "ffprobe: $got"
  test "$got" = "h264,800,600,19"
  ;;
missing)
  # No ffmpeg on PATH: exit 1 before any window opens, naming the program and the package.
  status=0
  env PATH=/nonexistent "$cl" view "$dir/viewer_scene.yaml" --no-settings --frames 3 \
    --video "$out/missing.mp4" 2> "$out/missing.err" || status=$?
  cat "$out/missing.err"
  test $status -eq 1
  grep -q 'ffmpeg is not on PATH' "$out/missing.err"
  grep -q 'apt-get install ffmpeg' "$out/missing.err"
  test ! -e "$out/missing.mp4"
  ;;
key_missing)
  # The key V without ffmpeg on the viewer's PATH: a message under the Record button and on
  # stderr, no file, and the run goes on (exit 0, its screenshot written).
  rm -rf "$out/key_missing" && mkdir -p "$out/key_missing"
  printf '2 key v\n' > "$out/key_missing/v.input"
  (cd "$out/key_missing" && xvfb-run -a -s "-screen 0 1600x900x24" env PATH=/nonexistent \
    "$cl" view "$dir/viewer_scene.yaml" --no-settings --frames 5 --input v.input \
    --screenshot shot.png > out.txt 2> err.txt)
  cat "$out/key_missing/err.txt"
  grep -q 'ffmpeg is not on PATH; install Debian.s ffmpeg package' "$out/key_missing/err.txt"
  grep -q 'viewer: 5 frames' "$out/key_missing/out.txt"
  test -s "$out/key_missing/shot.png"
  if ls "$out"/key_missing/*.mp4 > /dev/null 2>&1; then
    echo "a video was written without ffmpeg" >&2
    exit 1
  fi
  ;;
write_error)
  # An ffmpeg that dies at once: the pipe closes, the recording stops with a message and the
  # run exits 1 (not killed by SIGPIPE, which would be status 141).
  rm -rf "$out/fake" && mkdir -p "$out/fake"
  printf '#!/bin/sh\nexit 3\n' > "$out/fake/ffmpeg"
  chmod +x "$out/fake/ffmpeg"
  status=0
  PATH="$out/fake:$PATH" view --frames 10 --video "$out/fake/x.mp4" > "$out/write_error.out" \
    2> "$out/write_error.err" || status=$?
  cat "$out/write_error.out" "$out/write_error.err"
  echo "exit status $status"
  test $status -eq 1
  grep -q 'stopped after 0 frames: cannot write to ffmpeg (Broken pipe); ffmpeg failed' "$out/write_error.err"
  grep -q 'exit status 3' "$out/write_error.err"
  grep -q 'viewer: 10 frames' "$out/write_error.out"
  ;;
*)
  echo "unknown case $case" >&2
  exit 2
  ;;
esac
