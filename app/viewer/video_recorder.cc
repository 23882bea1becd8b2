#include "app/viewer/video_recorder.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

extern char** environ;

namespace contactlab {

namespace {

constexpr double kTargetFrameSeconds = 1.0 / 60.0;

bool IsExecutableFile(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(path.c_str(), X_OK) == 0;
}

}  // namespace

int VideoStepsPerFrame(double time_step) {
  if (!(time_step > 0) || !std::isfinite(time_step)) return 1;
  const double steps = std::round(kTargetFrameSeconds / time_step);
  return steps < 1 ? 1 : steps > 1e6 ? 1000000 : static_cast<int>(steps);
}

double VideoFrameRate(double time_step) {
  if (!(time_step > 0) || !std::isfinite(time_step)) return 60.0;
  return 1.0 / (VideoStepsPerFrame(time_step) * time_step);
}

int EvenVideoSize(int size) { return size < 2 ? 0 : size & ~1; }

std::string DefaultVideoFileName(const std::string& scene_stem, std::time_t when) {
  std::tm local {};
  localtime_r(&when, &local);
  char stamp[32];
  std::strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &local);
  return "contactlab_" + (scene_stem.empty() ? std::string("scene") : scene_stem) + "_" + stamp +
         ".mp4";
}

std::string FindProgram(const std::string& program) {
  if (program.empty()) return "";
  if (program.find('/') != std::string::npos) return IsExecutableFile(program) ? program : "";
  const char* path = std::getenv("PATH");
  if (!path) return "";
  std::string dirs = path;
  size_t begin = 0;
  while (begin <= dirs.size()) {
    size_t end = dirs.find(':', begin);
    if (end == std::string::npos) end = dirs.size();
    const std::string dir = end > begin ? dirs.substr(begin, end - begin) : ".";
    const std::string candidate = dir + "/" + program;
    if (IsExecutableFile(candidate)) return candidate;
    begin = end + 1;
  }
  return "";
}

std::string FfmpegMissingMessage() {
  return "video: the program ffmpeg is not on PATH; install Debian's ffmpeg package "
         "(apt-get install ffmpeg) to record video";
}

VideoRecorder::~VideoRecorder() {
  std::string ignored;
  Stop(&ignored);
}

bool VideoRecorder::Start(const std::string& path, int width, int height, double fps,
                          std::string* error) {
  if (active()) {
    *error = "video: already recording " + path_;
    return false;
  }
  if (width < 2 || height < 2 || (width % 2) != 0 || (height % 2) != 0) {
    *error = "video: the frame size " + std::to_string(width) + "x" + std::to_string(height) +
             " is not even";
    return false;
  }
  if (!(fps > 0) || !std::isfinite(fps)) {
    *error = "video: bad frame rate";
    return false;
  }
  const std::string ffmpeg = FindProgram("ffmpeg");
  if (ffmpeg.empty()) {
    *error = FfmpegMissingMessage();
    return false;
  }
  // A write to a pipe whose reader is gone must fail with EPIPE, not end the viewer.
  signal(SIGPIPE, SIG_IGN);

  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    *error = std::string("video: cannot create a pipe: ") + std::strerror(errno);
    return false;
  }
  char size[64], rate[64];
  std::snprintf(size, sizeof(size), "%dx%d", width, height);
  std::snprintf(rate, sizeof(rate), "%.9g", fps);
  // Raw RGB rows bottom first on stdin; flipped, converted to yuv420p and encoded with libx264.
  // Only errors are printed (on the viewer's stderr).
  std::vector<std::string> args{"ffmpeg",     "-hide_banner", "-loglevel", "error", "-nostats",
                                "-y",         "-f",           "rawvideo",  "-pix_fmt", "rgb24",
                                "-s",         size,           "-framerate", rate,   "-i",
                                "pipe:0",     "-vf",          "vflip",     "-c:v",  "libx264",
                                "-preset",    "veryfast",     "-crf",      "20",    "-pix_fmt",
                                "yuv420p",    "-movflags",    "+faststart", "-f",   "mp4",
                                path};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[0], 0);  // dup2 clears O_CLOEXEC on stdin
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, ffmpeg.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[0]);
  if (rc != 0) {
    close(fds[1]);
    *error = "video: cannot start " + ffmpeg + ": " + std::strerror(rc);
    return false;
  }
  pid_ = pid;
  fd_ = fds[1];
  frames_ = 0;
  width_ = width;
  height_ = height;
  fps_ = fps;
  path_ = path;
  return true;
}

bool VideoRecorder::AddFrame(const std::vector<std::uint8_t>& rgb, std::string* error) {
  if (!active()) {
    *error = "video: not recording";
    return false;
  }
  if (rgb.size() != static_cast<size_t>(width_) * height_ * 3) {
    *error = "video: a frame of the wrong size";
    return false;
  }
  const std::uint8_t* p = rgb.data();
  size_t left = rgb.size();
  while (left > 0) {
    const ssize_t n = write(fd_, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = n < 0 ? errno : EIO;
      std::string reap_error;
      Reap(&reap_error);
      *error = "video: recording of " + path_ + " stopped after " + std::to_string(frames_) +
               " frames: cannot write to ffmpeg (" + std::strerror(err) + ")" +
               (reap_error.empty() ? "" : "; " + reap_error.substr(7));  // past "video: "
      return false;
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  ++frames_;
  return true;
}

bool VideoRecorder::Stop(std::string* error) {
  if (!active()) return true;
  return Reap(error);
}

bool VideoRecorder::Reap(std::string* error) {
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
  int status = 0;
  pid_t r;
  do {
    r = waitpid(pid_, &status, 0);
  } while (r < 0 && errno == EINTR);
  pid_ = -1;
  if (r < 0) {
    *error = std::string("video: cannot wait for ffmpeg: ") + std::strerror(errno);
    return false;
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return true;
  // Starts with "video: " (AddFrame appends the rest).
  *error = "video: ffmpeg failed on " + path_ +
           (WIFEXITED(status) ? " (exit status " + std::to_string(WEXITSTATUS(status)) + ")"
                              : " (killed by signal " + std::to_string(WTERMSIG(status)) + ")");
  return false;
}

}  // namespace contactlab
