// Block accounting (see kv_pool.h).
#include "serve/kv_pool.h"

#include "common/errors.h"
#include "serve/scheduler.h"
#include "serve/step_model.h"

#include <algorithm>
#include <cmath>

namespace ridgeline {

KvWindow kv_window(const StepMemory& m) {
  return {m.kv_window_tokens, m.kv_windowed_share};
}

int64_t kv_blocks_for(int64_t tokens, int64_t block_size, const KvWindow& window) {
  int64_t n = (tokens + block_size - 1) / block_size;
  if (window.tokens == 0 || window.share == 0) return n;
  int64_t held = std::min(n, (window.tokens + block_size - 1) / block_size + 1);
  double blocks = (1 - window.share) * (double)n + window.share * (double)held;
  return std::min(n, (int64_t)std::ceil(blocks - 1e-9));
}

KvPool::KvPool(int64_t blocks, int64_t block_size_tokens, bool prefix_caching, KvWindow window)
    : total_(blocks),
      block_size_(block_size_tokens),
      prefix_caching_(prefix_caching && window.tokens == 0),
      window_(window),
      free_(blocks) {}

bool KvPool::take(int64_t blocks) {
  if (blocks > free_ + evictable_) return false;
  int64_t from_free = std::min(blocks, free_);
  free_ -= from_free;
  blocks -= from_free;
  while (blocks > 0) {  // evict the oldest cached blocks
    Cached& c = cached_.front();
    int64_t n = std::min(blocks, c.blocks);
    c.blocks -= n;
    c.seq->cached_blocks -= n;
    evictable_ -= n;
    blocks -= n;
    if (c.blocks == 0) cached_.pop_front();
  }
  return true;
}

bool KvPool::grow(Sequence& s, int64_t tokens) {
  int64_t need = blocks_for(tokens) - s.blocks;
  if (need <= 0) return true;
  if (!take(need)) return false;
  s.blocks += need;
  return true;
}

void KvPool::release(Sequence& s) {
  free_ += s.blocks;
  s.blocks = 0;
}

void KvPool::preempt(Sequence& s) {
  int64_t full = prefix_caching_ ? std::min(s.blocks, s.computed / block_size_) : 0;
  free_ += s.blocks - full;
  s.blocks = 0;
  if (full > 0) {
    s.cached_blocks = full;
    evictable_ += full;
    cached_.push_back({&s, full});
  }
}

int64_t KvPool::reuse_cached(Sequence& s) {
  if (s.cached_blocks == 0) return 0;
  for (auto it = cached_.begin(); it != cached_.end(); ++it) {
    if (it->seq != &s) continue;
    evictable_ -= it->blocks;
    s.blocks += it->blocks;
    cached_.erase(it);
    break;
  }
  require_invariant(s.blocks == s.cached_blocks, "cached blocks found once");
  s.cached_blocks = 0;
  // At least one token is left to compute, so that the step samples (vLLM keeps the last).
  return std::min(s.blocks * block_size_, s.tokens() - 1);
}

}  // namespace ridgeline
