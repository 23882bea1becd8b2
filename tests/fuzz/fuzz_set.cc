// libFuzzer target: one `--set KEY=VALUE` override (the input bytes) applied to a fixed valid
// scene. Contract: a bad override is a SceneError naming it; nothing else escapes or crashes.
#include <cstddef>
#include <cstdint>
#include <string>

#include "app/scene.h"

namespace {

// A small scene with every section an override can address: solver, materials (named list
// items), bodies with joints, templates, a generator and a load.
const char kScene[] = R"(description: "fuzz base"
time_step: 0.01
solver: {sigma: 1.0e-3, max_iterations: 50}
materials:
  - {name: wood, stiffness: 1.0e8, dissipation_time: 0.01, friction: 0.5}
templates:
  - {name: ball, density: 800, geoms: [{shape: sphere, radius: 0.03, material: wood}]}
bodies:
  - name: ground
    static: true
    geoms: [{shape: half_space, material: wood}]
  - name: box
    mass: 1.0
    position: [0, 0, 0.05]
    geoms: [{shape: box, size: [0.1, 0.1, 0.1], material: wood}]
  - name: arm
    mass: 0.5
    position: [0.5, 0, 1.0]
    joint: {type: revolute, axis: [0, 1, 0], limits: [-1, 1], child_frame: {position: [-0.1, 0, 0]}}
    geoms: [{shape: capsule, radius: 0.02, length: 0.2}]
generators:
  - grid: {name: pile, templates: [ball], count: [2, 1, 2], spacing: [0.1, 0.1, 0.1], origin: [1, 0, 0.1]}
loads:
  - {name: push, body: box, force: [1, 0, 0]}
)";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  contactlab::SceneOptions options;
  options.overrides.emplace_back(reinterpret_cast<const char*>(data), size);
  try {
    contactlab::Scene scene = contactlab::ParseScene(kScene, "fuzz_base.yaml", options);
  } catch (const contactlab::SceneError&) {
  }
  return 0;
}
