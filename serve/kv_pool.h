// The KV cache as blocks of block_size tokens: a request holds ceil(tokens / block_size) blocks
// for the tokens whose keys and values it has computed (or reserved, for an engine that reserves
// at admission). With prefix caching, a preempted request's full blocks stay in the pool as
// evictable: allocations take free blocks first, then evict the oldest cached ones; a request
// readmitted before its blocks were evicted starts from them (vLLM's prefix cache hit on its own
// prompt). Prompts are not modelled token by token, so two requests never share a prefix.
//
// Where a model's layers differ, its windowed layers (sliding, or Llama 4's chunks) keep only their
// window, as vLLM V1's hybrid allocator, TensorRT-LLM's variable sliding window and SGLang's SWA
// pool do: a block is the whole model's KV for block_size tokens, and a request of n blocks holds
// full_share x n + windowed_share x min(n, window blocks + 1) of them, rounded up (the window
// spans one partial block more). Such a pool caches no prefix on preemption.
#pragma once

#include <cstdint>
#include <deque>

namespace ridgeline {

struct Sequence;
struct StepMemory;

// The windowed layers' share of a token's KV bytes and their window (0: none).
struct KvWindow {
  int64_t tokens = 0;
  double share = 0;
};

// The window of a step model's memory.
KvWindow kv_window(const StepMemory& memory);

// Blocks of `block_size` tokens a request of `tokens` tokens holds.
int64_t kv_blocks_for(int64_t tokens, int64_t block_size, const KvWindow& window);

class KvPool {
 public:
  KvPool(int64_t blocks, int64_t block_size_tokens, bool prefix_caching, KvWindow window = {});

  int64_t blocks_for(int64_t tokens) const { return kv_blocks_for(tokens, block_size_, window_); }
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
  KvWindow window_;
  int64_t free_, evictable_ = 0;
  std::deque<Cached> cached_;  // oldest first
};

}  // namespace ridgeline
