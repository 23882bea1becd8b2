// libFuzzer target: the scene reader on arbitrary bytes.
// Contract (app/scene.h): any problem with the text is a SceneError; nothing else escapes, and
// nothing crashes, hangs or allocates without bound. An escaping exception of another type is
// reported by libFuzzer as a crash (uncaught exception -> abort).
#include <cstddef>
#include <cstdint>
#include <string>

#include "app/scene.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  contactlab::SceneOptions options;
  // Relative mesh paths resolve against the shipped assets, so the seeds' meshes load.
  options.base_dir = CONTACTLAB_SOURCE_DIR "/scenes";
  try {
    contactlab::Scene scene = contactlab::ParseScene(text, "fuzz.yaml", options);
  } catch (const contactlab::SceneError&) {
  }
  return 0;
}
