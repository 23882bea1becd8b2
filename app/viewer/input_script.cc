#include "app/viewer/input_script.h"

#include <cctype>
#include <cmath>
#include <exception>
#include <sstream>
#include <string>

#include "app/params.h"

namespace contactlab {

namespace {

bool ParseFrames(const std::string& s, int* first, int* last) {
  const size_t dash = s.find('-');
  try {
    size_t used = 0;
    if (dash == std::string::npos) {
      *first = *last = std::stoi(s, &used);
      return used == s.size() && *first >= 0;
    }
    const std::string a = s.substr(0, dash), b = s.substr(dash + 1);
    *first = std::stoi(a, &used);
    if (used != a.size()) return false;
    *last = std::stoi(b, &used);
    return used == b.size() && *first >= 0 && *last >= *first;
  } catch (const std::exception&) {
    return false;
  }
}

bool ParseNumber(const std::string& s, double* v) {
  try {
    size_t used = 0;
    *v = std::stod(s, &used);
    return used == s.size();
  } catch (const std::exception&) {
    return false;
  }
}

bool ValidKey(const std::string& k) {
  if (k == "space" || k == "right" || k == "backspace" || k == "escape") return true;
  return k.size() == 1 && (std::islower(static_cast<unsigned char>(k[0])) ||
                           std::isdigit(static_cast<unsigned char>(k[0])));
}

}  // namespace

bool ParseInputScript(const std::string& text, std::vector<InputEvent>* events,
                      std::string* error) {
  events->clear();
  std::istringstream in(text);
  std::string line;
  int line_no = 0;
  auto fail = [&](const std::string& what) {
    *error = "line " + std::to_string(line_no) + ": " + what;
    return false;
  };
  while (std::getline(in, line)) {
    ++line_no;
    const size_t hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    std::istringstream words(line);
    std::vector<std::string> w;
    for (std::string s; words >> s;) w.push_back(s);
    if (w.empty()) continue;
    if (w.size() < 2) return fail("expected FRAME EVENT ...");
    InputEvent e;
    if (!ParseFrames(w[0], &e.first_frame, &e.last_frame)) {
      return fail("bad frame '" + w[0] + "' (a number >= 0 or a range A-B)");
    }
    const std::string& kind = w[1];
    auto modifiers = [&](size_t from) {
      for (size_t i = from; i < w.size(); ++i) {
        if (w[i] == "ctrl") {
          e.ctrl = true;
        } else if (w[i] == "shift") {
          e.shift = true;
        } else {
          return false;
        }
      }
      return true;
    };
    auto button = [&](const std::string& b) {
      if (b == "left") e.button = 0;
      else if (b == "right") e.button = 1;
      else if (b == "middle") e.button = 2;
      else return false;
      return true;
    };
    if (kind == "key") {
      e.kind = InputEvent::Kind::kKey;
      if (w.size() < 3 || !ValidKey(w[2])) {
        return fail(
            "key needs a name: space, right, backspace, escape, a letter a-z or a digit 0-9");
      }
      e.key = w[2];
      if (!modifiers(3)) return fail("key: modifiers are ctrl and shift");
    } else if (kind == "move" || kind == "move_by") {
      e.kind = kind == "move" ? InputEvent::Kind::kMove : InputEvent::Kind::kMoveBy;
      if (w.size() != 4 || !ParseNumber(w[2], &e.x) || !ParseNumber(w[3], &e.y)) {
        return fail(kind + " needs two numbers (pixels)");
      }
    } else if (kind == "move_body") {
      e.kind = InputEvent::Kind::kMoveToBody;
      if (w.size() != 3 && w.size() != 5) return fail("move_body needs BODY [DX DY]");
      e.body = w[2];
      if (w.size() == 5 && (!ParseNumber(w[3], &e.x) || !ParseNumber(w[4], &e.y))) {
        return fail("move_body offset needs two numbers (pixels)");
      }
    } else if (kind == "down" || kind == "up") {
      e.kind = kind == "down" ? InputEvent::Kind::kDown : InputEvent::Kind::kUp;
      if (w.size() < 3 || !button(w[2])) return fail(kind + " needs left, right or middle");
      if (!modifiers(3)) return fail(kind + ": modifiers are ctrl and shift");
    } else if (kind == "wheel") {
      e.kind = InputEvent::Kind::kWheel;
      if (w.size() != 3 || !ParseNumber(w[2], &e.x)) return fail("wheel needs a number");
    } else if (kind == "set") {
      e.kind = InputEvent::Kind::kSet;
      if (w.size() != 4) return fail("set needs KEY VALUE");
      e.param = w[2];
      e.value = w[3];
      try {
        StepSettings check;
        SetStepParam(e.param, e.value, &check);
      } catch (const std::exception& ex) {
        return fail(std::string("set: ") + ex.what());
      }
    } else if (kind == "pause" || kind == "play" || kind == "resolve" || kind == "resume") {
      e.kind = kind == "pause"     ? InputEvent::Kind::kPause
               : kind == "play"    ? InputEvent::Kind::kPlay
               : kind == "resolve" ? InputEvent::Kind::kResolve
                                   : InputEvent::Kind::kResume;
      if (w.size() != 2) return fail(kind + " takes no argument");
    } else if (kind == "step" || kind == "scrub") {
      e.kind = kind == "step" ? InputEvent::Kind::kStep : InputEvent::Kind::kScrub;
      double n = 1;
      const bool ok = kind == "step" ? (w.size() == 2 || (w.size() == 3 && ParseNumber(w[2], &n)))
                                     : (w.size() == 3 && ParseNumber(w[2], &n));
      if (!ok || n != std::floor(n) || n < (kind == "step" ? 1 : 0) || n > 1e9) {
        return fail(kind == "step" ? "step takes a whole number of steps >= 1"
                                   : "scrub needs a step number >= 0");
      }
      e.count = static_cast<int>(n);
    } else {
      return fail("unknown event '" + kind +
                  "' (key, move, move_by, move_body, down, up, wheel, set, pause, play, step, "
                  "scrub, resolve, resume)");
    }
    events->push_back(e);
  }
  return true;
}

std::vector<const InputEvent*> EventsAtFrame(const std::vector<InputEvent>& events, int frame) {
  std::vector<const InputEvent*> out;
  for (const InputEvent& e : events) {
    if (frame >= e.first_frame && frame <= e.last_frame) out.push_back(&e);
  }
  return out;
}

}  // namespace contactlab
