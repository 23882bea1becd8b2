// Video recording of the viewer: raw RGB frames piped to Debian's `ffmpeg` program, which encodes
// them as H.264 (libx264, yuv420p) into an MP4 file. ffmpeg is a separate process found on PATH
// when a recording starts; nothing links against it. No GL here: the viewer reads the frame back
// and hands the pixels over.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <ctime>
#include <string>
#include <vector>

namespace contactlab {

// The frame interval of a recording: the whole number of physics steps nearest to 1/60 s of
// simulated time (at least one), so that every video frame advances the simulation by the same
// amount.
int VideoStepsPerFrame(double time_step);

// The video's frame rate [frames/s] that plays it in real time: one frame per
// VideoStepsPerFrame(time_step) steps of time_step, i.e. 1 / (steps x time_step).
double VideoFrameRate(double time_step);

// H.264 in yuv420p needs an even width and height: `size` rounded down to even (odd sizes lose
// their last column or row). 0 for sizes below 2.
int EvenVideoSize(int size);

// contactlab_<scene_stem>_<YYYYmmdd-HHMMSS>.mp4 (local time of `when`).
std::string DefaultVideoFileName(const std::string& scene_stem, std::time_t when);

// The full path of `program` on PATH (or `program` itself when it holds a '/' and is
// executable); empty when it is not found.
std::string FindProgram(const std::string& program);

// The message for a missing ffmpeg: names the program and the Debian package.
std::string FfmpegMissingMessage();

// One recording: Start spawns `ffmpeg` reading raw RGB frames on a pipe, AddFrame writes one,
// Stop closes the pipe and waits for ffmpeg. A write error (ffmpeg gone, disk full: the pipe
// closes) ends the recording with a message; SIGPIPE is ignored from Start on, so it never ends
// the process.
class VideoRecorder {
 public:
  VideoRecorder() = default;
  VideoRecorder(const VideoRecorder&) = delete;
  VideoRecorder& operator=(const VideoRecorder&) = delete;
  ~VideoRecorder();  // stops a running recording

  // Starts encoding frames of width x height (both even, >= 2) at `fps` into `path`
  // (overwritten). False with a message when ffmpeg is missing or cannot be started.
  bool Start(const std::string& path, int width, int height, double fps, std::string* error);

  // Writes one frame: width x height RGB pixels, 3 bytes each, rows bottom first (as
  // glReadPixels returns them; ffmpeg flips them). False with a message when the write fails:
  // the recording is then stopped (ffmpeg is waited for) and inactive.
  bool AddFrame(const std::vector<std::uint8_t>& rgb_bottom_up, std::string* error);

  // Closes the pipe and waits for ffmpeg to finish the file. False with a message when ffmpeg
  // failed. No-op (true) when not recording.
  bool Stop(std::string* error);

  bool active() const { return pid_ > 0; }
  int frames() const { return frames_; }
  int width() const { return width_; }
  int height() const { return height_; }
  double fps() const { return fps_; }
  const std::string& path() const { return path_; }

 private:
  // Waits for ffmpeg; false with a message when it did not exit with status 0.
  bool Reap(std::string* error);

  pid_t pid_ = -1;
  int fd_ = -1;  // write end of ffmpeg's stdin
  int frames_ = 0, width_ = 0, height_ = 0;
  double fps_ = 0;
  std::string path_;
};

}  // namespace contactlab
