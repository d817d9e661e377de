// Every finished request's record, for the outputs that list requests (serve --format json/csv,
// --trace), kept in a temporary file rather than in memory: each record is written at its id's
// offset as it finishes, so reading the file back gives them in id order whatever order they
// finished in. A 10^6-request run's list costs 72 MB of disk (the temporary directory), not of
// memory. The file is removed when the log is destroyed (std::tmpfile).
#pragma once

#include "serve/simulator.h"

#include <cstdint>
#include <cstdio>
#include <functional>

namespace ridgeline {

class RequestLog : public SimSink {
 public:
  explicit RequestLog(int64_t count);  // requests with ids 0 .. count-1
  ~RequestLog() override;
  RequestLog(const RequestLog&) = delete;
  RequestLog& operator=(const RequestLog&) = delete;

  void finished(const RequestRecord& r) override;
  int64_t size() const { return count_; }
  // Every record, in id order (all must have finished).
  void for_each(const std::function<void(const RequestRecord&)>& f) const;

 private:
  std::FILE* file_ = nullptr;
  int64_t count_ = 0;
  mutable int64_t next_ = 0;  // the id the file position is at
};

}  // namespace ridgeline
