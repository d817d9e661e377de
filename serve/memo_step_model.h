// The memo every step model shares: a step is its dense part (everything but attention, one
// price for the step's tokens and sequences) plus one attention price per request group, each
// memoised by bucketed shape so that long runs cost few predictions: tokens exact up to 512,
// then rounded up to 1/64 of their power of two (< 1.6% more work); cache lengths rounded up to
// 16 tokens up to 1024, then to 1/64 of their power of two (at least the group's query length,
// at most the model's sliding window where it has one). A packed step's one masked attention is
// memoised by its bucketed query tokens and keys. A step model says only how it prices the
// parts (price_dense, price_attention, price_packed_attention) on the bucketed shapes.
#pragma once

#include "model/serving_step.h"
#include "serve/step_model.h"

#include <map>
#include <tuple>

namespace ridgeline {

class MemoStepModel : public StepModel {
 public:
  double step_us(const StepShape& shape) final;
  double pipeline_edge_us(const StepShape& shape) final;
  int64_t data_parallel_ranks() const override { return ranks_; }

  // Distinct shapes priced so far.
  int64_t predictions() const {
    return (int64_t)dense_.size() + (int64_t)attention_.size() + (int64_t)packed_.size();
  }

  static int64_t bucket_tokens(int64_t tokens);
  static int64_t bucket_kv(int64_t kv_len);

 protected:
  struct DenseCost {
    double total_us = 0;
    double tp_comm_us = 0;  // the TP collectives' share of total_us (0 on one GPU)
    double edge_us = 0;     // the embedding's and the head's share (priced only where pp > 1)
  };
  // `sliding_window`: the model's (0: none), which caps the attended cache length.
  // `data_parallel_ranks` > 1: the replica's ranks each run their share of a step (attention data
  // parallel): a step is priced as one rank's, its tokens, sequences and each group's requests
  // divided among them (rounded up: the busiest rank's, every rank in lock-step); a group of
  // fewer requests than ranks (a prefill chunk) counts for its share of one rank's.
  explicit MemoStepModel(int64_t sliding_window, int64_t data_parallel_ranks = 1)
      : sliding_window_(sliding_window), ranks_(data_parallel_ranks) {}
  int64_t sliding_window_tokens() const override { return sliding_window_; }
  // The window the memo caps cache lengths at: a uniform model's (0 where layers differ: each
  // kind's window is its own, model/serving_step.h).
  static int64_t memo_window(const ModelConfig& model) {
    return model.layer_kinds.empty() ? model.sliding_window : 0;
  }
  // What KV sizing needs, from the model's serving memory figures.
  static StepMemory step_memory(const ServingMemory& m, const ModelConfig& model) {
    return {m.capacity_bytes,    m.weights_bytes,    m.reserved_bytes,   m.kv_bytes_per_token,
            model.max_positions, m.kv_window_tokens, m.kv_windowed_share};
  }

  // The dense part of a step of that many tokens and sequences (memoised, bucketed).
  const DenseCost& dense(int64_t tokens, int64_t sequences);
  // One rank's share of n (tokens, sequences, requests), rounded up; the dense part of one rank's
  // share of a step.
  int64_t rank_share(int64_t n) const;
  const DenseCost& rank_dense(const StepShape& shape);

  // The prices on bucketed shapes (sequences <= tokens; kv_len >= q_len).
  virtual DenseCost price_dense(int64_t tokens, int64_t sequences) = 0;
  virtual double price_attention(int64_t requests, int64_t q_len, int64_t kv_len) = 0;
  virtual double price_packed_attention(int64_t q_tokens, int64_t kv_tokens) = 0;

 private:
  double attention_us(const AttentionGroup& g);
  double packed_attention_us(int64_t q_tokens, int64_t kv_tokens);

  int64_t sliding_window_, ranks_;
  std::map<std::pair<int64_t, int64_t>, DenseCost> dense_;
  std::map<std::tuple<int64_t, int64_t, int64_t>, double> attention_;
  std::map<std::pair<int64_t, int64_t>, double> packed_;
};

}  // namespace ridgeline
