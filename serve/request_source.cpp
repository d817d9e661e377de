// Request sources (see request_source.h).
#include "serve/request_source.h"

#include <algorithm>

namespace ridgeline {

VectorSource::VectorSource(const std::vector<Request>& requests, bool by_arrival)
    : requests_(requests), order_(requests.size()) {
  for (size_t i = 0; i < order_.size(); ++i) order_[i] = i;
  if (by_arrival)
    std::stable_sort(order_.begin(), order_.end(), [&](size_t a, size_t b) {
      return requests_[a].arrival_s < requests_[b].arrival_s;
    });
}

bool VectorSource::next(Request& r, int64_t& index) {
  if (next_ >= order_.size()) return false;
  index = (int64_t)order_[next_++];
  r = requests_[(size_t)index];
  return true;
}

bool DrawnSource::next(Request& r, int64_t& index) {
  if (next_ >= count_) return false;
  index = next_;
  r = draws_.next(next_++);
  if (check_) check_(r, index);
  r.arrival_s = clock_.next();
  return true;
}

}  // namespace ridgeline
