// Where the event loop takes its requests from, one at a time: an open loop's in arrival order
// (arrival_s set), a closed loop's in id order (the simulator times them). A generated run draws
// each request when the loop needs it (DrawnSource: the same lengths and arrivals as
// generate_workload + assign_arrivals, from the same seeds), so that 10^6 requests cost no more
// memory than the ones in flight; a trace's requests are a vector already (VectorSource).
#pragma once

#include "serve/arrivals.h"
#include "serve/workload.h"

#include <cstdint>
#include <functional>
#include <vector>

namespace ridgeline {

class RequestSource {
 public:
  virtual ~RequestSource() = default;
  virtual int64_t size() const = 0;  // requests in all
  // The next request and its position in id order (0 .. size-1); false when none is left.
  virtual bool next(Request& r, int64_t& index) = 0;
};

class VectorSource : public RequestSource {
 public:
  // `by_arrival`: an open loop's order (a stable sort by arrival_s); else id order.
  VectorSource(const std::vector<Request>& requests, bool by_arrival);
  int64_t size() const override { return (int64_t)requests_.size(); }
  bool next(Request& r, int64_t& index) override;

 private:
  const std::vector<Request>& requests_;
  std::vector<size_t> order_;
  size_t next_ = 0;
};

class DrawnSource : public RequestSource {
 public:
  DrawnSource(const LengthSpec& input, const LengthSpec& output, int64_t count, uint64_t seed,
              const ArrivalSpec& arrivals)
      : draws_(input, output, seed), clock_(arrivals, seed), count_(count) {}
  int64_t size() const override { return count_; }
  bool next(Request& r, int64_t& index) override;
  // Called on each request as it is drawn (with its index), before the loop sees it; it may
  // throw (run_serving's check that the request can ever run).
  void check_each(std::function<void(const Request&, int64_t)> check) { check_ = std::move(check); }

 private:
  LengthDraws draws_;
  ArrivalClock clock_;
  int64_t count_, next_ = 0;
  std::function<void(const Request&, int64_t)> check_;
};

}  // namespace ridgeline
