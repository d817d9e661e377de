// What `sweep`, `search` and `capacity` share as batch jobs: `--jobs N` (threads; default 1, so
// a shared machine or a CI runner is not taken over unasked), `--shard I/N` (0-based: shard I of
// N owns the points whose index i has i % N == I, so shards balance even when cost grows along
// the point order; the output becomes JSONL for `ridgeline merge`), `--out FILE` (written to a
// temporary file in the same folder and renamed on success), `--progress` (stderr, every two
// seconds; default: when stderr is a terminal), and SIGINT: the first ^C sets a flag that ends
// the run between points (exit 130, a --out file removed, a shard's JSONL left without its
// footer); a second ^C kills at once.
#pragma once

#include <CLI/CLI.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace ridgeline {

struct BatchFlags {
  int jobs = 1;
  std::string shard, out;
  bool progress = false;
};

// Adds --jobs, --out, --progress and (with_shard) --shard to `cmd`.
void add_batch_flags(CLI::App& cmd, BatchFlags& f, bool with_shard = true);

struct ShardSpec {
  int64_t index = 0, count = 1;
  bool on = false;  // --shard given
  bool owns(int64_t point) const { return point % count == index; }
  std::string text() const { return std::to_string(index) + "/" + std::to_string(count); }
};

// "1/4" -> {1, 4}; errors name `flag`: "--shard 3/2: expected I/N with 0 <= I < N ...".
ShardSpec parse_shard(const std::string& flag, const std::string& text);

// A --jobs value, checked: 1 to 1024 threads, else an InputError naming the flag
// ("--jobs 0: must be at least 1 (threads)"). `ridgeline op --input` takes the same flag.
int checked_jobs(int jobs);

// Checks --jobs (>= 1) and --shard; the format a sharded run may not take is refused by the
// caller (a shard always writes JSONL).
struct Batch {
  int jobs = 1;
  ShardSpec shard;
};
Batch batch_of(const BatchFlags& f);

// The options `cmd` was given, one "name=value" a line (CLI11's config text), without those that
// do not change the points (--jobs, --shard, --out, --progress, --format): shards of one run
// carry the same text, and `merge` refuses shards whose texts differ.
std::string run_inputs_text(const CLI::App& cmd);

// SIGINT: install once per run; interrupted() is true after the first ^C.
void catch_sigint();
const std::atomic<bool>& interrupt_flag();
bool interrupted();

// Thrown when a run stops on SIGINT; main() answers with exit status 130.
class Interrupted : public std::runtime_error {
 public:
  Interrupted() : std::runtime_error("interrupted (SIGINT): output not complete") {}
};

// "sweep: 120000 of 1000000 points (12.0%)" on stderr at most every two seconds, and once at the
// end, when on.
class Progress {
 public:
  Progress(std::string what, std::string unit, int64_t total, bool on);
  void tick(int64_t done);
  void finish(int64_t done);

 private:
  void print(int64_t done);
  std::string what_, unit_;
  int64_t total_;
  bool on_;
  std::chrono::steady_clock::time_point last_;
};

// --progress, or stderr a terminal.
bool progress_wanted(const BatchFlags& f);

}  // namespace ridgeline
