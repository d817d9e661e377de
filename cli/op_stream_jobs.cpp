// stream_op_jsonl on N threads (op_stream.h). The calling thread reads the input into batches of
// whole lines (about 128 KiB each: a few hundred ops, ~1 ms of work) and hands them to N workers,
// each with its own OpLineRunner and OpJsonlPrinter (their parser and interval memo are one a
// thread) kept from batch to batch; a worker prints its batch into a string, and the calling
// thread writes the strings and gathers the errors in batch order. At most 4N batches are read
// ahead of the one written next, so memory stays bounded whatever the input's length. A line's
// number, which its error names, is counted from the batch's first line, so the messages are
// those of one thread. An exception from a batch (a bug, not a bad line: those are results) is
// rethrown on the calling thread when that batch is due.
#include "cli/op_runner.h"
#include "cli/op_stream.h"
#include "cli/views/op_jsonl.h"

#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <streambuf>
#include <thread>

namespace ridgeline {

namespace {

constexpr size_t kBatchBytes = 128 << 10;

// The input cut into batches of whole lines.
class LineBatches {
 public:
  explicit LineBatches(std::istream& in) : in_(in) {}

  // The next batch: at least kBatchBytes read (or all that is left), up to its last '\n' (the
  // input's last line also without one); false when nothing is left.
  bool next(std::string& text, int& lines_before) {
    text = std::move(carry_);  // a line begun in the last read (no '\n')
    carry_.clear();
    size_t searched = text.size();
    while (!end_) {
      text.resize(searched + kBatchBytes);
      in_.read(text.data() + searched, kBatchBytes);
      const auto got = static_cast<size_t>(in_.gcount());
      text.resize(searched + got);
      if (got < kBatchBytes) end_ = true;
      if (text.find('\n', searched) != std::string::npos) break;  // else a line longer than that
      searched = text.size();
    }
    if (text.empty()) return false;
    if (!end_) {
      const size_t last = text.rfind('\n');
      carry_.assign(text, last + 1);
      text.resize(last + 1);
    }
    lines_before = lines_;
    lines_ += static_cast<int>(std::count(text.begin(), text.end(), '\n'));
    return true;
  }

 private:
  std::istream& in_;
  std::string carry_;
  bool end_ = false;
  int lines_ = 0;  // lines in the batches given out
};

// A stream buffer that keeps what it is given.
class StringSink : public std::streambuf {
 public:
  std::string text;

 protected:
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    text.append(s, static_cast<size_t>(n));
    return n;
  }
  int_type overflow(int_type c) override {
    if (!traits_type::eq_int_type(c, traits_type::eof()))
      text.push_back(traits_type::to_char_type(c));
    return c;
  }
};

struct Batch {
  int64_t index = 0;
  std::string text;
  int lines_before = 0;
};

struct Printed {
  std::string jsonl;
  OpStreamSummary summary;
  std::exception_ptr error;
};

// One thread's runner and printer, kept from batch to batch.
class Worker {
 public:
  Worker(const std::string& label, const GpuSpec& gpu)
      : os_(&sink_), lines_(label, gpu), printer_(os_) {}
  Printed run(Batch batch) {
    Printed p;
    lines_.feed(std::move(batch.text), batch.lines_before);
    print_op_lines(lines_, printer_, p.summary);
    printer_.flush();
    p.jsonl = std::move(sink_.text);
    sink_.text = std::string();
    return p;
  }

 private:
  StringSink sink_;
  std::ostream os_;
  OpLineRunner lines_;
  OpJsonlPrinter printer_;
};

// The batches handed out and printed, shared by the calling thread and the workers.
struct Queue {
  explicit Queue(int64_t w) : window(w), done(static_cast<size_t>(w)) {}
  const int64_t window;
  std::mutex m;
  std::condition_variable work, printed;
  std::deque<Batch> todo;                    // guarded by m
  std::vector<std::optional<Printed>> done;  // by index % window; guarded by m
  bool closed = false;                       // guarded by m

  void serve(Worker& w) {
    for (;;) {
      Batch b;
      {
        std::unique_lock<std::mutex> lock(m);
        work.wait(lock, [&] { return closed || !todo.empty(); });
        if (closed) return;
        b = std::move(todo.front());
        todo.pop_front();
      }
      const int64_t index = b.index;
      Printed p;
      try {
        p = w.run(std::move(b));
      } catch (...) {
        p.error = std::current_exception();
      }
      {
        std::lock_guard<std::mutex> lock(m);
        done[static_cast<size_t>(index % window)] = std::move(p);
      }
      printed.notify_all();
    }
  }
  void close() {
    {
      std::lock_guard<std::mutex> lock(m);
      closed = true;
    }
    work.notify_all();
  }
};

// Closes the queue when the run ends, normally or by an exception, before the workers are joined.
struct Closer {
  Queue& q;
  ~Closer() { q.close(); }
};

}  // namespace

OpStreamSummary stream_op_jsonl_jobs(std::istream& in, const std::string& label, const GpuSpec& gpu,
                                     std::ostream& out, int jobs) {
  Queue q(4 * static_cast<int64_t>(jobs));
  std::vector<std::unique_ptr<Worker>> workers;
  for (int t = 0; t < jobs; ++t) workers.push_back(std::make_unique<Worker>(label, gpu));
  std::vector<std::jthread> pool;
  Closer closer{q};  // destroyed before pool: the workers stop, then are joined
  for (auto& w : workers) pool.emplace_back([&q, &w] { q.serve(*w); });
  LineBatches batches(in);
  OpStreamSummary total;
  int64_t handed = 0, written = 0;
  bool more = true;
  for (;;) {
    while (more && handed - written < q.window) {
      Batch b;
      b.index = handed;
      more = batches.next(b.text, b.lines_before);
      if (!more) break;
      {
        std::lock_guard<std::mutex> lock(q.m);
        q.todo.push_back(std::move(b));
      }
      q.work.notify_one();
      ++handed;
    }
    if (written == handed) break;
    Printed p;
    {
      std::unique_lock<std::mutex> lock(q.m);
      auto& slot = q.done[static_cast<size_t>(written % q.window)];
      q.printed.wait(lock, [&] { return slot.has_value(); });
      p = std::move(*slot);
      slot.reset();
    }
    ++written;
    if (p.error) std::rethrow_exception(p.error);
    out.write(p.jsonl.data(), static_cast<std::streamsize>(p.jsonl.size()));
    total.ops += p.summary.ops;
    for (auto& e : p.summary.errors) total.errors.push_back(std::move(e));
  }
  return total;
}

}  // namespace ridgeline
