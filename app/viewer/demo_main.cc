// Stand-alone viewer: contactlab_viewer_demo SCENE [--frames N] [--screenshot FILE] ...
#include <cstdio>
#include <string>

#include "app/viewer/viewer.h"

int main(int argc, char** argv) {
  contactlab::ViewerOptions options;
  std::string error;
  if (!contactlab::ParseViewerArgs(argc, argv, &options, &error)) {
    std::fprintf(stderr,
                 "%s\nusage: %s [SCENE] [--frames N] [--screenshot FILE.png] [--video FILE.mp4] "
                 "[--width W] [--height H] [--msaa N] [--transparent] [--labels]\n"
                 "       [--set KEY=VALUE]... [--panel NAME]... [--select BODY] [--settings FILE]\n"
                 "       [--no-settings] [--print-layout] [--seconds S] [--input FILE] [--trajectory FILE]\n"
                 "       [--compare CONFIG,CONFIG[,...]]\n",
                 error.c_str(), argc > 0 ? argv[0] : "contactlab_viewer_demo");
    return 2;
  }
  return contactlab::RunViewer(options);
}
