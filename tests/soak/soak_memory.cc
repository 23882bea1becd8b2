// Soak test: 10^5 steps of a contact-rich scene with flat memory.
//
//   soak_memory SCENE [TOTAL_STEPS] [WARMUP_STEPS] [MAX_GROWTH_KB]
//
// Steps the scene (default scenes/bench/clutter_40_walls.yaml: 40 bodies falling into a box and
// settling, ~100 contacts per step) with the Simulator, as `contactlab run` and the viewer do, and
// reads the peak resident set size (VmHWM of /proc/self/status) after WARMUP_STEPS (2·10^4) and
// after TOTAL_STEPS (10^5). Fails if the peak grew by more than MAX_GROWTH_KB (default 2048 KB).
//
// Why the bound holds for a correct program: by the warm-up sample the pile has settled (it
// lands within 1 s = 100 steps and is at rest well before 200 s = 2·10^4 steps), so every
// per-step buffer (contacts, constraint blocks, factorization, the step record) has reached its
// steady size and is reused; steps 2·10^4 .. 10^5 then allocate nothing new on net. Allocator
// fragmentation can move the peak by a few pages, far below 2 MB. A leak of even 32 bytes per
// step gives 8·10^4 × 32 B = 2.5 MB and fails; a retained per-step contact list (≥ 4 KB) gives
// ≥ 320 MB. Every step must also keep a finite state (the settled pile is well conditioned).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>

#include "app/scene.h"
#include "engine/sim/simulator.h"

namespace {

// A field of /proc/self/status in kB (VmHWM, VmRSS), or -1.
long StatusKb(const std::string& key) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.compare(0, key.size() + 1, key + ":") == 0)
      return std::atol(line.c_str() + key.size() + 1);
  }
  return -1;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string path =
      argc > 1 ? argv[1] : CONTACTLAB_SOURCE_DIR "/scenes/bench/clutter_40_walls.yaml";
  const long total = argc > 2 ? std::atol(argv[2]) : 100000;
  const long warmup = argc > 3 ? std::atol(argv[3]) : 20000;
  const long max_growth_kb = argc > 4 ? std::atol(argv[4]) : 2048;
  if (total <= 0 || warmup <= 0 || warmup >= total || max_growth_kb < 0) {
    std::cerr << "usage: soak_memory SCENE [TOTAL_STEPS > WARMUP_STEPS > 0] [WARMUP_STEPS] "
                 "[MAX_GROWTH_KB >= 0]\n";
    return 2;
  }
  contactlab::Scene scene;
  try {
    scene = contactlab::LoadScene(path);
  } catch (const contactlab::SceneError& e) {
    std::cerr << e.what() << "\n";
    return 2;
  }
  contactlab::Simulator sim(scene.model, scene.settings);
  long failures = 0, hwm_warm = -1, rss_warm = -1;
  for (long n = 1; n <= total; ++n) {
    const contactlab::StepRecord& rec = sim.Step();
    if (rec.result.stats.status != contactlab::SolverStatus::kConverged) ++failures;
    if (!rec.after.q.allFinite() || !rec.after.v.allFinite()) {
      std::cerr << "soak_memory: non-finite state at step " << n << "\n";
      return 1;
    }
    if (n == warmup) {
      hwm_warm = StatusKb("VmHWM");
      rss_warm = StatusKb("VmRSS");
    }
  }
  const long hwm_end = StatusKb("VmHWM"), rss_end = StatusKb("VmRSS");
  std::printf("soak_memory: %s, %ld steps (%.1f s simulated), %ld solver failures\n", path.c_str(),
              total, sim.state().time, failures);
  std::printf("  after %ld steps: VmHWM %ld kB, VmRSS %ld kB\n", warmup, hwm_warm, rss_warm);
  std::printf("  after %ld steps: VmHWM %ld kB, VmRSS %ld kB\n", total, hwm_end, rss_end);
  std::printf("  peak growth %ld kB (bound %ld kB)\n", hwm_end - hwm_warm, max_growth_kb);
  if (hwm_warm < 0 || hwm_end < 0) {
    std::cerr << "soak_memory: cannot read /proc/self/status\n";
    return 1;
  }
  if (hwm_end - hwm_warm > max_growth_kb) {
    std::cerr << "soak_memory: peak RSS grew by " << hwm_end - hwm_warm << " kB between steps "
              << warmup << " and " << total << " (bound " << max_growth_kb << " kB)\n";
    return 1;
  }
  return 0;
}
