// MemoStepModel (see memo_step_model.h).
#include "serve/memo_step_model.h"

#include "common/errors.h"

#include <algorithm>
#include <bit>

namespace ridgeline {

namespace {

// Rounds n up to a multiple of 1/64 of its power of two (n > 0).
int64_t round_relative(int64_t n) {
  int64_t grain = std::max<int64_t>(1, (int64_t)std::bit_floor((uint64_t)n) / 64);
  return (n + grain - 1) / grain * grain;
}

}  // namespace

int64_t MemoStepModel::bucket_tokens(int64_t tokens) {
  return tokens <= 512 ? tokens : round_relative(tokens);
}

int64_t MemoStepModel::bucket_kv(int64_t kv_len) {
  return kv_len <= 1024 ? (kv_len + 15) / 16 * 16 : round_relative(kv_len);
}

const MemoStepModel::DenseCost& MemoStepModel::dense(int64_t tokens, int64_t sequences) {
  int64_t t = bucket_tokens(tokens), s = std::min(bucket_tokens(sequences), t);
  auto key = std::make_pair(t, s);
  auto it = dense_.find(key);
  if (it != dense_.end()) return it->second;
  return dense_.emplace(key, price_dense(t, s)).first->second;
}

double MemoStepModel::attention_us(const AttentionGroup& g) {
  int64_t kv = std::max(bucket_kv(g.kv_len), g.q_len);
  if (sliding_window_ > 0) kv = std::min(kv, std::max(sliding_window_, g.q_len));
  auto key = std::make_tuple(g.requests, g.q_len, kv);
  auto it = attention_.find(key);
  if (it != attention_.end()) return it->second;
  double us = price_attention(g.requests, g.q_len, kv);
  attention_.emplace(key, us);
  return us;
}

double MemoStepModel::packed_attention_us(int64_t q_tokens, int64_t kv_tokens) {
  require_invariant(sliding_window_ == 0,
                    "a packed attention layout with a sliding window (size_kv_cache refuses it)");
  auto key = std::make_pair(bucket_tokens(q_tokens), bucket_kv(kv_tokens));
  auto it = packed_.find(key);
  if (it != packed_.end()) return it->second;
  return packed_.emplace(key, price_packed_attention(key.first, key.second)).first->second;
}

int64_t MemoStepModel::rank_share(int64_t n) const {
  return (n + ranks_ - 1) / ranks_;
}

const MemoStepModel::DenseCost& MemoStepModel::rank_dense(const StepShape& shape) {
  return dense(rank_share(shape.tokens), rank_share(shape.sequences));
}

double MemoStepModel::step_us(const StepShape& shape) {
  require_invariant(shape.tokens >= 1 && shape.sequences >= 1, "a step has work");
  double us = rank_dense(shape).total_us;
  for (AttentionGroup g : shape.groups) {
    // A group of fewer requests than ranks (a prefill chunk) runs on some ranks only: it counts
    // for its share of a rank; a larger one is split among them.
    double weight = g.requests < ranks_ ? (double)g.requests / (double)ranks_ : 1.0;
    g.requests = g.requests < ranks_ ? 1 : rank_share(g.requests);
    us += weight * attention_us(g);
  }
  if (shape.packed_kv_tokens > 0) us += packed_attention_us(shape.tokens, shape.packed_kv_tokens);
  return us;
}

double MemoStepModel::pipeline_edge_us(const StepShape& shape) {
  return rank_dense(shape).edge_us;
}

}  // namespace ridgeline
