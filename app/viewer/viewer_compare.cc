// Compare mode and the race of the viewer (see viewer_internal.h and compare_session.h): the
// configurations of --compare, their lockstep rounds beside the primary's jobs, their ghosts and
// contacts in the 3D view, the legend and divergence alerts, the Compare and Race tabs, and the
// race job on a frozen step.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "app/compare.h"
#include "app/viewer/viewer_internal.h"
#include "engine/sim/solver_registry.h"

namespace contactlab {
namespace viewer_internal {

namespace {

const ImVec4 kErrorText(1.0f, 0.4f, 0.35f, 1.0f);

// Wall time the race may spend on repeats of one point [ms]: enough for a median, short enough
// that a race of four configurations on a large step takes seconds.
constexpr double kRacePointBudgetMs = 150;

}  // namespace

std::vector<std::string> Viewer::CompareBaseOverrides() const {
  // The user's --set overrides, without the primary's CONFIG (RunViewer appended it); none once
  // another scene was opened (OpenScene clears them).
  std::vector<std::string> base = options_.overrides;
  if (!options_.compare.empty() && !base.empty()) {
    const size_t own = ConfigOverrides(options_.compare[0], "--compare").size();
    base.resize(base.size() - std::min(own, base.size()));
  }
  return base;
}

void Viewer::StartCompareFromOptions() {
  divergence_threshold_ = std::max(1e-4, 0.1 * TypicalGeometrySize(model_));
  if (options_.compare.empty()) return;
  const std::vector<std::string> base = CompareBaseOverrides();
  std::vector<CompareConfig> configs(1);
  configs[0].spec = options_.compare[0];
  configs[0].settings = edit_settings_;
  for (size_t c = 1; c < options_.compare.size(); ++c) {
    std::vector<std::string> overrides = base;
    for (std::string& o : ConfigOverrides(options_.compare[c], "--compare"))
      overrides.push_back(std::move(o));
    Scene scene = LoadScene(options_.scene_path, ViewerSceneOptions(options_, overrides));
    CompareConfig config;
    config.spec = options_.compare[c];
    config.settings = scene.settings;
    config.model = std::move(scene.model);
    configs.push_back(std::move(config));
  }
  try {
    compare_.Start(model_, std::move(configs), live_state_, live_step_count_);
  } catch (const std::invalid_argument& e) {
    throw SceneError(options_.scene_path + ": --compare: " + e.what());
  }
  compare_store_.Reset(compare_.size());
  compare_errors_.assign(compare_.size(), "");
}

void Viewer::RestartCompare() {
  if (!compare_.active()) return;
  compare_.SetSpring(std::nullopt);  // a spring names a body of the previous scene
  std::vector<CompareConfig> configs{compare_.primary()};
  configs[0].settings = edit_settings_;
  std::vector<std::string> notes(compare_.size());
  for (int c = 1; c < compare_.size(); ++c) {
    CompareConfig config = compare_.config(c);
    config.model.reset();
    StepSettings base = scene_.settings;
    if (!config.spec.empty()) {
      // A CONFIG of --compare is applied to the new scene as to the first: its material edits
      // give the configuration its own model again. A key the new scene lacks (a material or
      // pair it does not have) leaves the scene's materials, with a note in the panel.
      try {
        std::vector<std::string> overrides = CompareBaseOverrides();
        for (std::string& o : ConfigOverrides(config.spec, "--compare"))
          overrides.push_back(std::move(o));
        Scene scene = LoadScene(options_.scene_path, ViewerSceneOptions(options_, overrides));
        base = scene.settings;
        config.model = std::move(scene.model);
      } catch (const std::exception& e) {
        notes[c] = "'" + config.spec + "' does not apply to this scene (" + e.what() +
                   "): the scene's materials are used";
      }
    }
    // The scene's own step settings with the configuration's solver choice (its panel edits).
    config.settings = WithSolverChoice(base, config.settings);
    configs.push_back(std::move(config));
  }
  compare_.Start(model_, std::move(configs), live_state_, live_step_count_);
  compare_store_.Reset(compare_.size());
  compare_errors_ = std::move(notes);
}

void Viewer::SyncPrimaryConfig() { compare_.primary().settings = edit_settings_; }

bool Viewer::CompareNeedsRound() const {
  if (!compare_.active()) return false;
  for (int c = 1; c < compare_.size(); ++c) {
    const CompareSession::Ghost& g = compare_.ghost(c);
    if (g.settings_dirty) return true;
    if (!g.stopped && g.step_count < live_step_count_) return true;  // catch up (paused)
  }
  return false;
}

void Viewer::RenderGhosts(const StepRecord* shown) {
  const int step = shown ? shown->step : -1;
  KinematicsCache kin;
  ContactDrawOptions contacts = overlay_.contacts;
  contacts.cones = false;  // one cone per contact is the primary's; ghosts' would hide it
  contacts.inactive = false;
  contacts.labels = false;
  contacts.gap_loads = false;
  for (int c = 1; c < compare_.size(); ++c) {
    const CompareSession::Ghost& g = compare_.ghost(c);
    if (!g.config.show_ghost) continue;
    // Its bodies at the shown step (or its newest before it while it catches up); before the
    // first step, its live state.
    const VecX* q = nullptr;
    double t = 0;
    if (step >= 0) {
      if (const CompareEntry* e = compare_store_.AtOrBefore(c, step)) {
        q = &e->summary.q;
        t = e->summary.time;
      }
    } else {
      q = &g.live_state.q;
      t = g.live_state.time;
    }
    if (!q || q->size() != model_.nq) continue;
    multibody_->UpdateKinematics(*q, t, &kin);
    // Bodies where the primary's are stay faint; a body a quarter of a body size away is drawn
    // in full.
    const std::vector<float> visibility =
        GhostVisibility(shown_poses_, kin.X_WB, 0.25 * typical_size_, 0.5 * typical_size_);
    renderer_->DrawGhost(model_, kin.X_WB, CompareColor(c), &visibility);
    if (g.config.show_contacts && step >= 0) {
      if (const StepRecord* r = compare_.GhostRecord(c, step)) {
        // The primary's sizing, level of detail and focus.
        ContactGlyphContext context = GlyphContextFor(*r);
        context.selected_contact = -1;
        // Dots as concentric rings: each configuration's dot a size larger than the next one's
        // and drawn before it, the primary's last and smallest, so that where the solvers agree
        // one contact shows every configuration's colour as a ring around the primary's dot.
        ContactDrawOptions ghost = contacts;
        const double grow = 1.0 + 0.35 * (compare_.size() - c);
        ghost.point_size *= grow;
        ghost.min_point_size *= grow;
        TintedDebugDraw tinted(glyphs_.get(), CompareColor(c));
        glyph_counts_.AddCounts(DrawContacts(*r, ghost, context, &tinted));
      }
    }
  }
}

std::vector<std::string> Viewer::CompareAlerts() const {
  std::vector<std::string> out;
  if (!compare_.active()) return out;
  const std::vector<std::string> names = compare_.Names();
  std::vector<std::string> bodies;
  for (const Body& b : model_.bodies) bodies.push_back(b.name);
  for (const DivergenceAlert& a : FindDivergence(compare_store_, divergence_threshold_)) {
    out.push_back("DIVERGENCE: " + DivergenceText(a, names, bodies, divergence_threshold_));
  }
  for (int c = 1; c < compare_.size(); ++c) {
    const CompareSession::Ghost& g = compare_.ghost(c);
    if (g.stopped) out.push_back(names[c] + " STOPPED: " + g.stop_reason);
  }
  return out;
}

void Viewer::DrawCompareLegend() {
  ImDrawList* dl = ImGui::GetBackgroundDrawList();
  const std::vector<std::string> names = compare_.Names();
  const StepRecord* shown = DisplayedRecord();
  std::vector<std::string> lines;
  for (int c = 0; c < compare_.size(); ++c) {
    std::string line = names[c];
    if (c == 0) {
      line += "  (primary)";
    } else if (shown) {
      const CompareEntry* e = compare_store_.Find(c, shown->step);
      if (compare_.ghost(c).stopped) {
        line += "  stopped at step " + std::to_string(compare_.ghost(c).step_count);
      } else if (e && !std::isnan(e->divergence)) {
        line += "  " + FormatLength(e->divergence);
      } else {
        line += "  (step " + std::to_string(compare_.ghost(c).step_count) + ")";
      }
    }
    if (c > 0 && !compare_.ghost(c).config.show_ghost) line += "  hidden";
    lines.push_back(line);
  }
  const float lh = ImGui::GetTextLineHeightWithSpacing();
  float width = 0;
  for (const std::string& l : lines) width = std::max(width, ImGui::CalcTextSize(l.c_str()).x);
  const float sw = ImGui::GetTextLineHeight();
  // Bottom right of the 3D view (the status line and its alerts run along the top).
  const float x0 = vp_x_ + vp_w_ - width - sw - 28.0f;
  const float y0 = vp_y_ + vp_h_ - lh * static_cast<float>(lines.size()) - 12.0f;
  dl->AddRectFilled(ImVec2(x0 - 6, y0 - 4), ImVec2(vp_x_ + vp_w_ - 8, y0 + lh * lines.size() + 2),
                    IM_COL32(10, 12, 16, 190), 4.0f);
  for (size_t c = 0; c < lines.size(); ++c) {
    const ImU32 col = ToImU32(CompareColor(static_cast<int>(c)));
    const float y = y0 + lh * c;
    dl->AddRectFilled(ImVec2(x0, y + 0.2f * sw), ImVec2(x0 + 0.8f * sw, y + sw), col, 2.0f);
    dl->AddText(ImVec2(x0 + sw + 6, y), col, lines[c].c_str());
  }
}

void Viewer::DrawCompareTab() {
  SyncPrimaryConfig();
  if (!compare_error_.empty()) {
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextColored(kErrorText, "%s", compare_error_.c_str());
    ImGui::PopTextWrapPos();
  }
  const StepRecord* shown = DisplayedRecord();
  const int step = shown ? shown->step : -1;
  const int n = compare_.active() ? compare_.size() : 1;
  const std::vector<std::string> names =
      compare_.active() ? compare_.Names()
                        : std::vector<std::string>{CompareConfigName(edit_settings_)};
  compare_errors_.resize(n);
  // Ghost settings are edited in copies: an edit is validated before it reaches the session.
  std::vector<StepSettings> edits(n);
  std::vector<CompareConfigRow> rows(n);
  for (int c = 0; c < n; ++c) {
    CompareConfigRow& r = rows[c];
    r.name = names[c];
    r.color = CompareColor(c);
    r.error = compare_errors_[c];
    r.shown = compare_.active() && step >= 0 ? compare_store_.Find(c, step) : nullptr;
    if (c == 0) {
      r.spec = compare_.active() ? compare_.primary().spec : "";
      r.settings = &edit_settings_;
      r.step_count = live_step_count_;
    } else {
      CompareSession::Ghost& g = compare_.ghost(c);
      edits[c] = g.config.settings;
      r.spec = g.config.spec;
      r.settings = &edits[c];
      r.show_ghost = &g.config.show_ghost;
      r.show_contacts = &g.config.show_contacts;
      r.step_count = g.step_count;
      r.stopped = g.stopped;
      r.stop_reason = g.stop_reason;
    }
  }
  const bool paused = !playback_.playing && !scripted_;
  const StepSettings primary_before = edit_settings_;
  const CompareRequests req =
      DrawCompareConfigs(rows, n < kMaxCompareConfigs, paused, &divergence_threshold_);
  if (req.edited >= 0) {
    StepSettings& s = req.edited == 0 ? edit_settings_ : edits[req.edited];
    try {
      s.Validate();
      compare_errors_[req.edited].clear();
      if (req.edited == 0) {
        settings_dirty_ = true;  // as the Parameters panel's edits
        settings_error_.clear();
      } else {
        compare_.SetSettings(req.edited, s);
      }
    } catch (const std::exception& e) {
      compare_errors_[req.edited] = e.what();
      if (req.edited == 0) edit_settings_ = primary_before;
    }
  }
  if (req.remove > 0 && compare_.active()) {
    WaitIdleKeepingShownStep();
    compare_.RemoveConfig(req.remove);
    compare_store_.RemoveConfig(req.remove);
    compare_errors_.erase(compare_errors_.begin() + req.remove);
    if (!compare_.active()) compare_store_.Reset(0);
  }
  if (req.add) {
    WaitIdleKeepingShownStep();
    // The next solver of the registry that no configuration uses (and that accepts the
    // primary's contact model), else another copy of the primary's.
    std::vector<SolverType> used{edit_settings_.solver_type};
    for (int c = 1; c < compare_.size(); ++c) {
      used.push_back(compare_.config(c).settings.solver_type);
    }
    StepSettings choice = edit_settings_;
    for (int i = 0; i < kNumSolverTypes; ++i) {
      const auto type = static_cast<SolverType>(i);
      if (std::find(used.begin(), used.end(), type) != used.end()) continue;
      if (!SolverAcceptsModel(type, edit_settings_.contact.model)) continue;
      choice.solver_type = type;
      break;
    }
    try {
      const bool was_active = compare_.active();
      SyncPrimaryConfig();
      compare_.AddConfig(model_, choice, live_state_, live_step_count_);
      if (was_active) {
        compare_store_.AddConfig();
      } else {
        compare_store_.Reset(compare_.size());
      }
      compare_errors_.resize(compare_.size());
      compare_error_.clear();
    } catch (const std::exception& e) {
      compare_error_ = e.what();
    }
  }
  if (req.sync && compare_.active() && paused) {
    WaitIdleKeepingShownStep();
    compare_.SyncTo(live_state_, live_step_count_);
    compare_store_.TruncateAfter(live_step_count_ - 1);  // the ghosts step these again
  }
  if (!compare_.active()) {
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextDisabled(
        "One configuration. Add one above, or start the viewer with --compare sap,pgs: the "
        "configurations step in lockstep, the others drawn as tinted ghosts over the primary, "
        "their series overlaid here.");
    ImGui::PopTextWrapPos();
    return;
  }
  CompareSeriesView view;
  view.store = &compare_store_;
  view.names = compare_.Names();
  for (int c = 0; c < compare_.size(); ++c) view.colors.push_back(CompareColor(c));
  view.shown_step = step;
  view.threshold = divergence_threshold_;
  const float avail = ImGui::GetContentRegionAvail().y;
  view.plot_height = std::max(30.0f, (avail - 30.0f) / kNumCompareQuantities - 24.0f);
  const int clicked = DrawCompareSeries(view);
  if (clicked >= 0 && history_.Get(clicked)) {
    playback_.playing = false;  // show that step (pausing the run)
    timeline_.follow_live = false;
    timeline_.slider = clicked - history_.oldest_step();
    OnNewRecord();
  }
}

std::vector<StepSettings> Viewer::RaceSettings() const {
  if (!compare_.active()) return {edit_settings_};
  std::vector<StepSettings> out = compare_.AllSettings();
  out[0] = edit_settings_;
  return out;
}

std::vector<std::string> Viewer::RaceNames() const {
  return compare_.active() ? compare_.Names() : CompareConfigNames(RaceSettings());
}

void Viewer::StartRace(const StepRecord& record) {
  CancelRace();
  auto cancel = std::make_shared<std::atomic<bool>>(false);
  auto points = std::make_shared<std::atomic<int>>(0);
  race_cancel_ = cancel;
  race_points_ = points;
  race_job_step_ = record.step;
  race_job_generation_ = generation_;
  race_status_.clear();
  race_job_ = std::async(std::launch::async,
                         [record, settings = RaceSettings(), names = RaceNames(), cancel, points] {
                           RaceOptions options;
                           options.min_repeats = 3;
                           options.max_repeats = 9;
                           options.budget_ms = kRacePointBudgetMs;
                           options.cancel = cancel.get();
                           options.on_point = [points](const RacePoint&) { ++*points; };
                           return RunRace(record, settings, names, options);
                         });
}

void Viewer::PollRace() {
  if (!race_job_.valid()) return;
  if (race_job_.wait_for(std::chrono::seconds(0)) != std::future_status::ready) return;
  RaceRun run;
  try {
    run = race_job_.get();
  } catch (const std::exception& e) {
    race_status_ = std::string("race failed: ") + e.what();
    return;
  }
  if (race_job_generation_ != generation_) return;  // a reset, resume or reload since
  bool cancelled = false;
  for (const RaceEntry& e : run.entries) cancelled = cancelled || e.curve.cancelled;
  if (cancelled) {
    race_status_ = "race cancelled";
    return;
  }
  race_ = std::move(run);
  race_generation_ = race_job_generation_;
}

void Viewer::CancelRace() {
  if (!race_job_.valid()) return;
  if (race_cancel_) *race_cancel_ = true;
  race_job_.wait();
  try {
    race_job_.get();
  } catch (const std::exception&) {
  }
  race_status_ = "race cancelled";
}

void Viewer::DrawRaceTab(float height) {
  SyncPrimaryConfig();
  const StepRecord* shown = DisplayedRecord();
  const bool running = race_job_.valid();
  std::string status = race_status_;
  if (running) {
    status = "racing step " + std::to_string(race_job_step_) + ": " +
             std::to_string(race_points_ ? race_points_->load() : 0) + " points";
  } else if (race_ && race_generation_ == generation_ && shown && race_->step != shown->step) {
    status = "shown: step " + std::to_string(shown->step) + " (press Race)";
  }
  const bool can_race = shown && !playback_.playing && !scripted_;
  const float plot_h = std::max(90.0f, 0.30f * height);
  const RaceRun* run = race_ && race_generation_ == generation_ ? &*race_ : nullptr;
  if (DrawRacePanel(run, status, can_race, plot_h) && shown) StartRace(*shown);
  if (!scripted_) {
    ImGui::Checkbox("race every shown step while paused", &race_auto_);
    if (race_auto_ && can_race && !running && (!run || run->step != shown->step)) {
      StartRace(*shown);
    }
  }
}

void Viewer::PrintCompareSummary() const {
  if (compare_.active()) {
    const std::vector<std::string> names = compare_.Names();
    const StepRecord* shown = DisplayedRecord();
    std::printf("viewer: compare: %d configurations in lockstep\n", compare_.size());
    for (int c = 0; c < compare_.size(); ++c) {
      const auto& track = compare_store_.track(c);
      double iterations = 0, ncp = 0, worst = 0;
      int ncp_n = 0, worst_step = -1;
      for (const CompareEntry& e : track) {
        iterations += e.summary.iterations;
        if (std::isfinite(e.summary.ncp_residual)) {
          ncp += e.summary.ncp_residual;
          ++ncp_n;
        }
        if (!std::isnan(e.divergence) && (worst_step < 0 || e.divergence > worst)) {
          worst = e.divergence;
          worst_step = e.summary.step;
        }
      }
      const int count = c == 0 ? live_step_count_ : compare_.ghost(c).step_count;
      std::printf(
          "viewer: compare %d %s (%s): %d steps, %d summarized, mean iterations %.2f, mean ncp "
          "residual %.3e",
          c, names[c].c_str(),
          compare_.config(c).spec.empty() ? "panel" : compare_.config(c).spec.c_str(), count,
          static_cast<int>(track.size()),
          track.empty() ? 0.0 : iterations / static_cast<double>(track.size()),
          ncp_n > 0 ? ncp / ncp_n : std::nan(""));
      if (c > 0) {
        const CompareEntry* e = shown ? compare_store_.Find(c, shown->step) : nullptr;
        std::printf(", distance from the primary %.3e m at the shown step, max %.3e m at step %d",
                    e ? e->divergence : std::nan(""), worst, worst_step);
        if (compare_.ghost(c).stopped) {
          std::printf(", stopped: %s", compare_.ghost(c).stop_reason.c_str());
        }
      }
      std::printf("\n");
    }
  }
  if (race_ && race_generation_ == generation_) {
    std::printf("viewer: race on step %d (%d constraints, %d dofs) in %.2f s\n", race_->step,
                race_->constraints, race_->dofs, race_->wall_s);
    for (const RaceEntry& e : race_->entries) {
      if (!e.error.empty()) {
        std::printf("viewer: race %s: %s\n", e.name.c_str(), e.error.c_str());
        continue;
      }
      const RaceBest b = BestRacePoint(e.curve);
      std::printf(
          "viewer: race %s: %d points, best ncp residual %.3e at %.4f ms (%d iterations, "
          "%s)\n",
          e.name.c_str(), static_cast<int>(e.curve.points.size()), b.ncp_residual, b.solve_ms,
          b.iterations, SolverStatusName(b.status));
    }
  }
}

}  // namespace viewer_internal
}  // namespace contactlab
