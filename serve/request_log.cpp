// The on-disk request log (see request_log.h).
#include "serve/request_log.h"

#include "common/errors.h"

#include <algorithm>
#include <type_traits>
#include <vector>

namespace ridgeline {

static_assert(std::is_trivially_copyable_v<RequestRecord>, "records are written as bytes");

RequestLog::RequestLog(int64_t count) : file_(std::tmpfile()), count_(count) {
  if (file_ == nullptr)
    throw InputError(
        "cannot create a temporary file for the per-request output (is TMPDIR writable?)");
}

RequestLog::~RequestLog() {
  if (file_ != nullptr) std::fclose(file_);
}

void RequestLog::finished(const RequestRecord& r) {
  require_invariant(r.id >= 0 && r.id < count_, "a request id within the log");
  // Requests mostly finish in id order: seek (which flushes stdio's buffer) only when out of it.
  bool seek = r.id != next_;
  if ((seek && std::fseek(file_, (long)(r.id * (int64_t)sizeof(RequestRecord)), SEEK_SET) != 0) ||
      std::fwrite(&r, sizeof r, 1, file_) != 1)
    throw InputError("cannot write the per-request output's temporary file (disk full?)");
  next_ = r.id + 1;
}

void RequestLog::for_each(const std::function<void(const RequestRecord&)>& f) const {
  std::fflush(file_);
  std::fseek(file_, 0, SEEK_SET);
  next_ = -1;
  std::vector<RequestRecord> chunk(4096);
  for (int64_t done = 0; done < count_;) {
    size_t want = (size_t)std::min<int64_t>((int64_t)chunk.size(), count_ - done);
    size_t got = std::fread(chunk.data(), sizeof(RequestRecord), want, file_);
    if (got != want) throw InputError("cannot read back the per-request output's temporary file");
    for (size_t i = 0; i < got; ++i) f(chunk[i]);
    done += (int64_t)got;
  }
}

}  // namespace ridgeline
