// The KV cache as blocks of block_size tokens: a request holds ceil(tokens / block_size) blocks
// for the tokens whose keys and values it has computed (or reserved, for an engine that reserves
// at admission). With prefix caching, a preempted request's full blocks stay in the pool as
// evictable: allocations take free blocks first, then evict the oldest cached ones; a request
// readmitted before its blocks were evicted starts from them (vLLM's prefix cache hit on its own
// prompt). Prompts are not modelled token by token, so two requests never share a prefix.
#pragma once

#include <cstdint>
#include <deque>

namespace ridgeline {

struct Sequence;

class KvPool {
 public:
  KvPool(int64_t blocks, int64_t block_size_tokens, bool prefix_caching);

  int64_t blocks_for(int64_t tokens) const { return (tokens + block_size_ - 1) / block_size_; }
  // Grows s to hold `tokens` tokens; false (nothing changes) when the blocks are not there.
  bool grow(Sequence& s, int64_t tokens);
  // Frees all of s's blocks (a finished request).
  void release(Sequence& s);
  // Frees s's blocks on preemption; with prefix caching its full blocks stay cached.
  void preempt(Sequence& s);
  // Tokens a readmitted s finds cached (its blocks move back to it); 0 without prefix caching.
  int64_t reuse_cached(Sequence& s);

  int64_t total_blocks() const { return total_; }
  int64_t free_blocks() const { return free_ + evictable_; }  // what an allocation can get
  int64_t used_blocks() const { return total_ - free_ - evictable_; }
  int64_t block_size() const { return block_size_; }

 private:
  struct Cached {
    Sequence* seq;
    int64_t blocks;
  };
  bool take(int64_t blocks);

  int64_t total_, block_size_;
  bool prefix_caching_;
  int64_t free_, evictable_ = 0;
  std::deque<Cached> cached_;  // oldest first
};

}  // namespace ridgeline
