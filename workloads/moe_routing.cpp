// Expected expert loads; see moe_routing.h.
#include "workloads/moe_routing.h"

#include <algorithm>
#include <cmath>

namespace ridgeline {

namespace {

// Expected distinct bins hit by `draws` draws spread evenly over `bins`, each draw choosing
// `per_draw` distinct bins (probability per_draw/bins of hitting a given bin).
double distinct_hit(double bins, double per_draw, double draws) {
  if (bins <= 0 || draws <= 0) return 0;
  double miss = std::max(0.0, 1.0 - per_draw / bins);
  return bins * (1.0 - std::pow(miss, draws));
}

}  // namespace

double max_moe_imbalance(int64_t experts, int64_t top_k) {
  return top_k > 0 ? (double)experts / (double)top_k : 1.0;
}

ExpertLoad expert_load(int64_t experts, int64_t top_k, int64_t tokens, double imbalance) {
  double E = (double)experts, k = (double)top_k, T = (double)tokens;
  double routed = T * k;
  ExpertLoad l;
  l.experts = E;
  if (imbalance <= 1.0 || experts <= 1) {
    l.active = distinct_hit(E, k, T);  // at least k (one token), at most E
    l.tokens_per_active = routed / l.active;
    l.busiest = std::min(T, std::ceil(l.tokens_per_active));
    if (experts > 1) {
      l.draw_tokens = T;
      l.draw_p = std::min(1.0, k / E);
    }
    return l;
  }
  l.busiest = std::min(T, std::ceil(imbalance * routed / E));
  double rest = routed - l.busiest;
  // The others' pairs land evenly on E - 1 experts, each taking a token at most once.
  double others = std::max(std::ceil(rest / T), distinct_hit(E - 1, 1, rest));
  others = std::min(others, E - 1);
  l.active = 1 + others;
  l.tokens_per_active = routed / l.active;
  return l;
}

}  // namespace ridgeline
