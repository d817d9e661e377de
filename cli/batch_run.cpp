// Batch flags, shard specs, SIGINT and progress of sweep/search/capacity (see batch_run.h).
#include "cli/batch_run.h"

#include "common/errors.h"

#include <unistd.h>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <sstream>

namespace ridgeline {

namespace {

std::atomic<bool> g_interrupted{false};

extern "C" void on_sigint(int) {
  g_interrupted.store(true);
  std::signal(SIGINT, SIG_DFL);  // a second ^C kills at once
}

// A whole non-negative decimal number (digits only).
bool whole(const std::string& s, int64_t& v) {
  if (s.empty() || s.size() > 15) return false;
  v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  return true;
}

}  // namespace

void add_batch_flags(CLI::App& cmd, BatchFlags& f, bool with_shard) {
  cmd.add_option("--jobs", f.jobs, "Threads pricing points at once (default 1); same output");
  if (with_shard)
    cmd.add_option("--shard", f.shard,
                   "I/N (0-based): only the points i with i % N == I, as JSONL for `ridgeline "
                   "merge`");
  cmd.add_option("--out", f.out, "Write the output to FILE (renamed into place when complete)");
  cmd.add_flag("--progress", f.progress, "Progress on stderr (default: when stderr is a terminal)");
}

ShardSpec parse_shard(const std::string& flag, const std::string& text) {
  size_t slash = text.find('/');
  ShardSpec s;
  auto bad = [&](const std::string& why) {
    return InputError(flag + " " + text + ": " + why +
                      " (expected I/N, 0-based: shard I of N, 0 <= I < N, N >= 1)");
  };
  if (slash == std::string::npos || !whole(text.substr(0, slash), s.index) ||
      !whole(text.substr(slash + 1), s.count))
    throw bad("not two whole numbers I/N");
  if (s.count < 1) throw bad("N must be at least 1");
  if (s.index >= s.count) throw bad("I must be less than N");
  s.on = true;
  return s;
}

int checked_jobs(int jobs) {
  if (jobs < 1)
    throw InputError("--jobs " + std::to_string(jobs) + ": must be at least 1 (threads)");
  if (jobs > 1024) throw InputError("--jobs " + std::to_string(jobs) + ": at most 1024 threads");
  return jobs;
}

Batch batch_of(const BatchFlags& f) {
  Batch b;
  b.jobs = checked_jobs(f.jobs);
  if (!f.shard.empty()) b.shard = parse_shard("--shard", f.shard);
  return b;
}

std::string run_inputs_text(const CLI::App& cmd) {
  std::stringstream in(cmd.config_to_str(false, false));
  std::string line, out;
  while (std::getline(in, line)) {
    bool drop = line.empty();
    for (const char* skip : {"jobs=", "shard=", "out=", "progress=", "format="})
      drop = drop || line.rfind(skip, 0) == 0;
    if (!drop) out += line + "\n";
  }
  return out;
}

void catch_sigint() {
  g_interrupted.store(false);
  std::signal(SIGINT, on_sigint);
}
const std::atomic<bool>& interrupt_flag() {
  return g_interrupted;
}
bool interrupted() {
  return g_interrupted.load();
}

Progress::Progress(std::string what, std::string unit, int64_t total, bool on)
    : what_(std::move(what)),
      unit_(std::move(unit)),
      total_(total),
      on_(on),
      last_(std::chrono::steady_clock::now()) {}

void Progress::print(int64_t done) {
  char pct[32];
  std::snprintf(pct, sizeof pct, "%.1f",
                total_ > 0 ? 100.0 * (double)done / (double)total_ : 100.0);
  std::cerr << what_ << ": " << done << " of " << total_ << " " << unit_ << " (" << pct << "%)\n";
}

void Progress::tick(int64_t done) {
  if (!on_) return;
  auto now = std::chrono::steady_clock::now();
  if (now - last_ < std::chrono::seconds(2)) return;
  last_ = now;
  print(done);
}

void Progress::finish(int64_t done) {
  if (on_) print(done);
}

bool progress_wanted(const BatchFlags& f) {
  return f.progress || isatty(2);
}

}  // namespace ridgeline
