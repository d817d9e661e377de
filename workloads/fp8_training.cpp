// Transformer Engine's fp8 GEMMs and quantize kernels in a rank graph; see fp8_training.h. Each
// section is copied in launch order (so launch order stays a topological order), the TE GEMMs
// retyped to fp8 and their casts put in front of them, each GEMM waiting on its casts.
#include "workloads/fp8_training.h"

#include "common/name_table.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace ridgeline {

namespace {

const NameTable<Fp8Recipe>& recipes() {
  static const NameTable<Fp8Recipe> t{{Fp8Recipe::Delayed, "delayed"},
                                      {Fp8Recipe::Current, "current"},
                                      {Fp8Recipe::Blockwise, "blockwise"},
                                      {Fp8Recipe::Mxfp8, "mxfp8"}};
  return t;
}

class Fp8Rewriter {
 public:
  Fp8Rewriter(const GraphSection& in, const Fp8Training& fp8, double weight_share,
              const ReduceLaunch& reduction)
      : in_(in),
        out_(in.kind, in.name, in.repeat, in.first_layer),
        fp8_(fp8),
        weight_share_(weight_share),
        reduction_(reduction),
        map_(boost::num_vertices(in.dag())) {}

  GraphSection run(int64_t& te_gemms, int64_t& casts);

 private:
  std::vector<OpVertex> producers(OpVertex v) const {
    std::vector<OpVertex> after;
    auto [e, end] = boost::in_edges(v, in_.dag());
    for (; e != end; ++e) after.push_back(map_[boost::source(*e, in_.dag())]);
    std::sort(after.begin(), after.end());
    after.erase(std::unique(after.begin(), after.end()), after.end());
    return after;
  }
  // A quantize kernel of `numel` bf16 elements into fp8 and its transpose (2 bytes read, 1 + 1
  // written: a bf16 copy's traffic), after the amax pass current scaling runs first.
  // `gather`: the shard of this sequence-parallel all-gather is cast, and under current scaling
  // the shards' amax is all-reduced over its group first (one scale for the gathered tensor:
  // TE's amax_reduction_group).
  OpVertex cast(const GraphNode& gemm, const std::string& what, double numel,
                std::vector<OpVertex> after, const GraphNode* gather = nullptr) {
    auto n = (int64_t)std::max(1.0, std::round(numel));
    KernelRole r = gemm.role;
    if (fp8_.recipe == Fp8Recipe::Current) {
      Op amax{"", ReduceOp{ReduceKind::Max, n, DType::Bf16, reduction_}, false};
      after = {add_kernel(out_, r, gemm.name + "." + what + "_amax", amax, after)};
      ++casts_;
      if (gather) {
        Op reduce = gather->op;
        auto& c = std::get<CollectiveOp>(reduce.shape);
        c.kind = CollectiveKind::AllReduce, c.bytes = 4, c.dtype = DType::Fp32;
        after = {add_kernel(out_, gather->role, gather->name + ".amax_all_reduce", reduce, after)};
        out_.dag()[after[0]].stream = gather->stream;
      }
    }
    Op copy{"", ElementwiseOp{ElementwiseKind::Copy, n, DType::Bf16, false, {}}, false};
    ++casts_;
    return add_kernel(out_, r, gemm.name + "." + what + "_cast_fp8", copy, after);
  }

  // A sequence-parallel all-gather whose every consumer is a TE fp8 GEMM, under a per-tensor
  // recipe (delayed or current scaling): TE quantizes the rank's shard and gathers the fp8 data
  // (Linear / LayerNormLinear's input before a column-parallel GEMM; the output gradient before a
  // row-parallel dgrad), then transposes the gathered fp8 tensor for the wgrad.
  bool fp8_gather(OpVertex v, const GraphNode& n) const {
    auto* c = std::get_if<CollectiveOp>(&n.op.shape);
    if (!c || c->kind != CollectiveKind::AllGather || n.role.group != CommGroup::Tp) return false;
    if (fp8_.recipe != Fp8Recipe::Delayed && fp8_.recipe != Fp8Recipe::Current) return false;
    auto [e, end] = boost::out_edges(v, in_.dag());
    if (e == end) return false;
    for (; e != end; ++e)
      if (!te_fp8_gemm(in_.dag()[boost::target(*e, in_.dag())].role)) return false;
    return true;
  }
  bool gathered_fp8_input(OpVertex v) const {
    auto [e, end] = boost::in_edges(v, in_.dag());
    for (; e != end; ++e)
      if (gathered_fp8_.count(boost::source(*e, in_.dag()))) return true;
    return false;
  }

  const GraphSection& in_;
  GraphSection out_;
  std::set<OpVertex> gathered_fp8_;  // input-graph all-gathers that carry fp8
  const Fp8Training& fp8_;
  double weight_share_;
  const ReduceLaunch& reduction_;
  std::vector<OpVertex> map_;
  std::map<std::vector<OpVertex>, OpVertex> input_casts_;  // forward inputs cast once each
  int64_t casts_ = 0;
};

GraphSection Fp8Rewriter::run(int64_t& te_gemms, int64_t& casts) {
  for (OpVertex v : launch_order(in_)) {
    const GraphNode& n = in_.dag()[v];
    std::vector<OpVertex> after = producers(v);
    Op op = n.op;
    auto* g = std::get_if<GemmOp>(&op.shape);
    if (fp8_gather(v, n)) {
      auto& c = std::get<CollectiveOp>(op.shape);
      double numel = c.bytes / dtype_bytes(c.dtype);
      // The shard's casts are its consumer GEMM's kernels (the input or the output gradient).
      const GraphNode& consumer =
          in_.dag()[boost::target(*boost::out_edges(v, in_.dag()).first, in_.dag())];
      bool grad = consumer.role.grad == GradKind::Dgrad;
      after = {cast(consumer, grad ? "grad_shard" : "input_shard", numel / std::max(1, c.ranks),
                    after, &n)};
      c.bytes = numel * dtype_bytes(DType::Fp8);
      c.dtype = DType::Fp8;
      OpVertex gathered = add_kernel(out_, n.role, n.name, op, after);
      out_.dag()[gathered].stream = n.stream;
      // The gathered fp8 tensor transposed for the wgrad (1 byte read, 1 written an element).
      Op transpose{
          "",
          ElementwiseOp{ElementwiseKind::Copy, (int64_t)std::llround(numel), DType::Fp8, false, {}},
          false};
      ++casts_;
      map_[v] = add_kernel(out_, consumer.role,
                           consumer.name + (grad ? ".grad" : ".input") + "_transpose_fp8",
                           transpose, {gathered});
      gathered_fp8_.insert(v);
      continue;
    }
    if (g && te_fp8_gemm(n.role)) {
      bool gathered = gathered_fp8_input(v);
      double problems = g->problems(), m = (double)g->m, k = (double)g->k;
      const KernelRole& r = n.role;
      if (r.pass == Pass::Backward && r.grad == GradKind::Dgrad) {
        if (!gathered) after = {cast(n, "grad", problems * m * k, after)};  // dY [m, n_forward]
      } else if (r.pass != Pass::Backward) {
        if (r.pass == Pass::Forward) {
          ++te_gemms;  // its weight: once per step (cached over the micro-batches)
          after = {cast(n, "weight", weight_share_ * problems * (double)g->n * k, after)};
        }
        if (!gathered) {  // an input gathered in fp8 was cast on its shard, before the gather
          std::vector<OpVertex> key = producers(v);
          auto it = input_casts_.find(key);
          if (it == input_casts_.end())
            it = input_casts_.emplace(key, cast(n, "input", problems * m * k, after)).first;
          after.push_back(it->second);
          std::sort(after.begin(), after.end());
          after.erase(std::unique(after.begin(), after.end()), after.end());
        }
      }
      g->dtype = DType::Fp8;
    }
    OpVertex x = add_kernel(out_, n.role, n.name, op, after);
    out_.dag()[x].stream = n.stream;
    map_[v] = x;
  }
  casts += casts_;
  return std::move(out_);
}

}  // namespace

const char* fp8_recipe_name(Fp8Recipe r) {
  return recipes().name(r);
}
std::optional<Fp8Recipe> parse_fp8_recipe(const std::string& name) {
  return recipes().parse(name);
}

bool te_fp8_gemm(const KernelRole& role) {
  return role.kind == RoleKind::WeightGemm && role.projection != Projection::LmHead &&
         role.projection != Projection::Router;
}

Fp8Rewrite apply_fp8_training(const OpGraph& rank_graph, const Fp8Training& fp8,
                              double weight_cast_share, const ReduceLaunch& reduction) {
  Fp8Rewrite out;
  out.graph.description = rank_graph.description + ", fp8 (" + fp8_recipe_name(fp8.recipe) + ")";
  for (const GraphSection& s : rank_graph.sections) {
    int64_t gemms = 0;
    out.graph.sections.push_back(
        Fp8Rewriter(s, fp8, weight_cast_share, reduction).run(gemms, out.casts));
    if (s.kind == SectionKind::DecoderBlock) out.block_te_gemms += gemms;
  }
  return out;
}

}  // namespace ridgeline
