// Stage timing for performance work: with GJ2K_TRACE set in the environment, each TraceStage
// prints "gj2k trace: <name> <ms> @<end>" to stderr when it ends (from whichever thread ran it;
// <end>: ms since the process's first trace call, so that stages of several threads line up).
// Without it, a TraceStage costs one branch. Not public.
#pragma once

#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace gj2k::codec {

inline bool trace_enabled() {
  static const bool on = [] {
    const char* v = std::getenv("GJ2K_TRACE");
    return v && *v && *v != '0';
  }();
  return on;
}

// Milliseconds since the first call (the trace's time axis).
inline double trace_clock_ms() {
  static const std::chrono::steady_clock::time_point epoch = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - epoch)
      .count();
}

// Prints "gj2k trace: <text> @<now>" when tracing is on (a figure that is not a stage's time).
template <class... Args>
void trace_note(const char* format, Args... args) {
  if (!trace_enabled()) return;
  char text[512];
  std::snprintf(text, sizeof text, format, args...);
  std::fprintf(stderr, "gj2k trace: %s @%.1f\n", text, trace_clock_ms());
}

class TraceStage {
 public:
  explicit TraceStage(const char* name) : name_(trace_enabled() ? name : nullptr) {
    if (name_) {
      trace_clock_ms();  // the epoch no later than the first stage's start
      start_ = std::chrono::steady_clock::now();
    }
  }
  ~TraceStage() { end(); }
  TraceStage(const TraceStage&) = delete;
  TraceStage& operator=(const TraceStage&) = delete;
  // Ends the stage now (once).
  void end() {
    if (!name_) return;
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_)
            .count();
    std::fprintf(stderr, "gj2k trace: %-24s %9.1f ms @%.1f\n", name_, ms, trace_clock_ms());
    name_ = nullptr;
  }

 private:
  const char* name_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace gj2k::codec
