// Scripted input for the viewer: keyboard and mouse events at given frames of a scripted run
// (`contactlab view SCENE --frames N --input FILE`), fed through the same input path as a user's
// (ImGui's IO, then the viewer's input handling), so picking, the mouse spring, focus and the
// keyboard shortcuts can be tested headless and deterministically.
//
// One event per line, `#` starts a comment; FRAME is a frame number (0 = the first frame) or a
// range A-B (the event repeats on every frame of it):
//   FRAME key NAME [ctrl] [shift]          press and release a key (space, right, backspace,
//                                          escape, a letter a-z or a digit 0-9); over a range
//                                          the key is pressed anew on every frame of it (A-B key
//                                          right takes B - A + 1 steps)
//   FRAME move X Y                         mouse to window pixel (X, Y), y down
//   FRAME move_by DX DY                    mouse by (DX, DY) pixels
//   FRAME move_body BODY [DX DY]           mouse to the projection of BODY's centre of mass
//                                          (a body index or name), plus an optional offset
//   FRAME down left|right|middle [ctrl] [shift]   press a button (modifiers held until up)
//   FRAME up left|right|middle             release it
//   FRAME wheel N                          scroll N notches (positive zooms in)
//   FRAME set KEY VALUE                    change a parameter as the parameter panel does (KEY a
//                                          scene key of the step, solver or contact table, e.g.
//                                          `contact.model lagged`; checked when the script is
//                                          read, applied to the next step or re-solve)
//   FRAME pause | play                     pause or play the run (scripted runs start playing)
//   FRAME step [N]                         take N steps (default 1) and pause, as the key Right
//   FRAME scrub STEP                       pause and show recorded step STEP (the timeline's
//                                          slider; clamped to the recorded steps)
//   FRAME resolve                          re-solve the shown step (paused), as the key R
//   FRAME resume                           resume the run from the shown step (the timeline's
//                                          Resume button: the later steps are dropped)
#pragma once

#include <string>
#include <vector>

namespace contactlab {

struct InputEvent {
  enum class Kind {
    kKey, kMove, kMoveBy, kMoveToBody, kDown, kUp, kWheel, kSet,
    kPause, kPlay, kStep, kScrub, kResolve, kResume
  };
  int first_frame = 0, last_frame = 0;  // inclusive
  Kind kind = Kind::kKey;
  std::string key;       // kKey: key name
  std::string body;      // kMoveToBody: index or name
  std::string param, value;  // kSet: parameter key and value
  double x = 0, y = 0;   // kMove: position; kMoveBy / kMoveToBody: offset [px]; kWheel: x
  int button = 0;        // 0 left, 1 right, 2 middle
  int count = 1;         // kStep: steps; kScrub: the step to show
  bool ctrl = false, shift = false;
};

// Parses a script. On a malformed line returns false with "line N: ..." in `error`.
bool ParseInputScript(const std::string& text, std::vector<InputEvent>* events,
                      std::string* error);

// The events active at `frame`, in file order.
std::vector<const InputEvent*> EventsAtFrame(const std::vector<InputEvent>& events, int frame);

}  // namespace contactlab
