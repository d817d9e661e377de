// How an MoE layer's tokens spread over its experts, as engines run it: only experts that
// receive tokens run (and read their weights). With T tokens each routed to top_k distinct
// experts of E, chosen evenly, an expert is missed by one token with probability 1 - k/E, so
//   active experts = E * (1 - (1 - k/E)^T)
// (Mixtral, top-2 of 8: 2 at batch 1, 5.5 at batch 4, 8.0 at batch 64). --moe-imbalance F gives
// the busiest expert F times the mean load T*k/E; it can get each token at most once, so F is
// at most E/k, and the other T*k - busiest assignments spread evenly over the other experts.
// Without a given imbalance each expert's load is a draw: Binomial(T, k/E) pairs (tokens routed
// at random, the least spread a router gives), which grouped GEMMs tile unevenly
// (GemmOp::routed, model/gemm_cost.cpp).
#pragma once

#include <cstdint>

namespace ridgeline {

struct ExpertLoad {
  double experts = 0;           // experts the tokens spread over (one rank's under EP)
  double active = 0;            // experts that receive at least one token (expected)
  double tokens_per_active = 0;  // their mean load (token-expert pairs per active expert)
  double busiest = 0;           // the busiest expert's tokens
  // Each expert's load as a draw (0 under a given imbalance): Binomial(draw_tokens, draw_p).
  double draw_tokens = 0, draw_p = 0;
};

ExpertLoad expert_load(int64_t experts, int64_t top_k, int64_t tokens, double imbalance);

// The largest --moe-imbalance that top_k of `experts` allows: E/k (the busiest gets every token).
double max_moe_imbalance(int64_t experts, int64_t top_k);

}  // namespace ridgeline
