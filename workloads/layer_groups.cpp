// A model's decoder layers grouped by kind (model_config.h's layer_groups, layer_groups_in) and
// the KV cache each kind holds. One pass gives every layer its group, numbered in order of each
// group's first layer: DeepSeek's first_k_dense_replace dense layers then its MoE layers, or one
// group per distinct entry of layer_kinds (windows, chunks, NoPE, dense or MoE MLP); a uniform
// model is one group. Each group carries the model of that kind as a uniform model.
#include "workloads/model_config.h"

#include "common/errors.h"
#include "workloads/mla_config.h"

#include <algorithm>

namespace ridgeline {

namespace {

// The model of one entry of layer_kinds, as a uniform model.
ModelConfig kind_model(const ModelConfig& m, const LayerKind& k) {
  ModelConfig v = m;
  v.layer_kinds.clear();
  v.sliding_window = k.window;  // a chunk caps attended keys and the cache as a window does
  if (!k.rope) v.position = PositionKind::None;
  if (!k.rope && v.qk_norm == QkNorm::L2) v.qk_norm = QkNorm::None;  // Llama 4: RoPE layers only
  require_invariant(!k.moe || m.moe.experts > 0, "an MoE layer in a model with experts");
  if (!k.moe) v.moe = MoeConfig{};
  return v;
}

// The first `layers` layers' groups (counts over all of them) and each layer's group.
struct Grouped {
  std::vector<LayerGroup> groups;
  std::vector<size_t> of_layer;
};

Grouped group_layers(const ModelConfig& m, int64_t layers) {
  Grouped out;
  // A stage or a slice may count no layer (a rank's share of a pipeline): no group then.
  if (layers <= 0) return out;
  out.of_layer.assign((size_t)layers, 0);
  if (m.layer_kinds.empty()) {
    // DeepSeek's first_k_dense_replace layers run the dense MLP before its MoE layers.
    int64_t dense = m.moe.experts > 0 ? dense_layer_count(m, layers) : 0;
    if (dense == 0) {
      out.groups = {LayerGroup{m, 0, layers}};
      return out;
    }
    ModelConfig d = m;
    d.moe = MoeConfig{};
    out.groups = {LayerGroup{std::move(d), 0, dense}};
    if (dense < layers) out.groups.push_back(LayerGroup{m, dense, layers - dense});
    for (int64_t i = dense; i < layers; ++i) out.of_layer[(size_t)i] = 1;
    return out;
  }
  require_invariant((int64_t)m.layer_kinds.size() >= layers, "one layer kind a layer");
  std::vector<LayerKind> kinds;
  for (int64_t i = 0; i < layers; ++i) {
    const LayerKind& k = m.layer_kinds[(size_t)i];
    size_t g = (size_t)(std::find(kinds.begin(), kinds.end(), k) - kinds.begin());
    if (g == kinds.size()) {
      kinds.push_back(k);
      out.groups.push_back(LayerGroup{kind_model(m, k), i, 0});
    }
    ++out.groups[g].count;
    out.of_layer[(size_t)i] = g;
  }
  return out;
}

}  // namespace

std::vector<LayerGroup> layer_groups(const ModelConfig& m, int64_t layers) {
  return group_layers(m, layers).groups;
}

std::vector<LayerGroup> layer_groups_in(const ModelConfig& m, int64_t layers, int64_t first,
                                        int64_t end) {
  require_invariant(0 <= first && first <= end && end <= layers, "a layer range of the model");
  Grouped all = group_layers(m, layers);
  for (LayerGroup& g : all.groups) g.count = 0, g.first = -1;
  for (int64_t i = first; i < end; ++i) {
    LayerGroup& g = all.groups[all.of_layer[(size_t)i]];
    if (g.first < 0) g.first = i;
    ++g.count;
  }
  return all.groups;
}

double kv_cache_bytes(const std::vector<LayerGroup>& groups, double positions,
                      double bytes_per_element) {
  double bytes = 0;
  for (const auto& g : groups) {
    double held = g.model.sliding_window > 0 ? std::min(positions, (double)g.model.sliding_window)
                                             : positions;
    bytes += (double)g.count * held * kv_cache_elements_per_layer(g.model);  // K/V or MLA's latent
  }
  return bytes * bytes_per_element;
}

double kv_cache_bytes(const ModelConfig& m, double positions, int64_t layers,
                      double bytes_per_element) {
  return kv_cache_bytes(layer_groups(m, layers > 0 ? layers : m.layers), positions,
                        bytes_per_element);
}

}  // namespace ridgeline
