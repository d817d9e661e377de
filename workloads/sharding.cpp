// The per-rank graph under a parallel strategy; see sharding.h. rewrite_section() copies a
// section in launch order into a new one, so every edge still points forward (launch order stays
// a topological order) while collectives go in before or after the kernels the rules name:
//   map[v]    what v's consumers wait for (v, or the collective after it)
//   extra[v]  more for them to wait for (the async all-reduce of a dgrad, hung on its wgrad)
#include "workloads/sharding.h"

#include "common/errors.h"

#include "workloads/builder_ops.h"
#include "workloads/graph_builder.h"
#include "workloads/op_math.h"

#include <algorithm>

namespace ridgeline {

ModelConfig shard_model(const ModelConfig& model, const ParallelConfig& p) {
  ModelConfig m = model;
  m.heads = model.heads / p.tp;
  m.kv_heads = kv_heads_per_rank(model, p.tp);
  m.intermediate = model.intermediate / p.tp;
  m.moe.expert_intermediate = model.moe.expert_intermediate / p.expert_tp();
  m.vocab = padded_vocab(model, p.tp) / p.tp;
  return m;
}

RunConfig shard_run(const RunConfig& run, const ParallelConfig& p) {
  RunConfig r = run;
  if (run.phase == Phase::Train) r.batch = p.microbatch;
  if (run.phase != Phase::Decode) r.seq = run.seq / p.cp;
  r.expert_ranks = p.ep;
  if (p.moe_folded()) r.moe_token_split = p.tp;
  r.optimizer = Optimizer::None;
  return r;
}

int64_t group_ranks(CommGroup g, const ParallelConfig& p) {
  switch (g) {
    case CommGroup::Tp:
      return p.tp;
    case CommGroup::Cp:
      return p.cp;
    case CommGroup::Dp:
      return p.dp;
    case CommGroup::Ep:
      return p.ep;
    case CommGroup::Pp:
      return p.pp;
    case CommGroup::None:
      return 1;
  }
  return 1;
}

int64_t group_ranks_per_node(CommGroup g, const ParallelConfig& p, int64_t gpus_per_node) {
  int64_t stride = 1;  // ranks between two members of the group
  if (g == CommGroup::Cp) stride = p.tp;
  if (g == CommGroup::Dp || (g == CommGroup::Ep && !p.moe_folded())) stride = p.tp * p.cp;
  if (g == CommGroup::Pp) stride = p.tp * p.cp * p.dp;
  return even_ranks_per_node(group_ranks(g, p), gpus_per_node / stride);
}

int64_t even_ranks_per_node(int64_t ranks, int64_t per_node) {
  int64_t d = std::max<int64_t>(1, std::min(per_node, ranks));
  while (ranks % d != 0) --d;
  return d;
}

namespace {

// A collective of `bytes` (nccl-tests' convention, op.h) over `ranks`, `per_node` in a node.
Op collective_op(CollectiveKind kind, double bytes, int64_t ranks, int64_t per_node, DType d) {
  return Op{"", CollectiveOp{kind, bytes, (int)ranks, (int)per_node, d}, false};
}

// What the rewriter needs of the strategy, once.
struct Plan {
  ParallelConfig p;
  int64_t gpus_per_node = 1;
  DType act = DType::Bf16;
  int64_t tokens = 0;  // per rank and micro-batch (before sequence parallelism)
  int64_t hidden = 0, top_k = 0, seq_chunk = 0;
  double kv_chunk_bytes = 0;  // one rank's K and V (ring attention)
  // Under MoE parallel folding (ParallelConfig::moe_folded) the MLP norm's all-gather stays only
  // for a shared expert.
  bool shared_expert = false;
  // The bytes of one micro-batch's h-wide activation the experts exchange (tokens / tp folded).
  double expert_tokens_bytes() const {
    return (double)tokens / (p.moe_folded() ? p.tp : 1) * hidden * dtype_bytes(act) * top_k;
  }
};

bool is_collective_site(Projection pr, std::initializer_list<Projection> set) {
  return std::find(set.begin(), set.end(), pr) != set.end();
}

// Row-parallel GEMMs (their output is a partial sum) and the first column-parallel GEMM of a
// group (its dgrad is the partial input gradient).
bool row_parallel(const KernelRole& r) {
  return r.kind == RoleKind::WeightGemm &&
         is_collective_site(r.projection, {Projection::O, Projection::Down, Projection::Proj});
}
bool column_parallel_input(const KernelRole& r) {
  return r.kind == RoleKind::WeightGemm &&
         is_collective_site(r.projection,
                            {Projection::Q, Projection::Qkv, Projection::Gate, Projection::GateUp,
                             Projection::Fc, Projection::ExpertsGateUp, Projection::LmHead});
}
bool forward_pass(const KernelRole& r) {
  return r.pass != Pass::Backward;
}

class Rewriter {
 public:
  Rewriter(const GraphSection& in, const Plan& plan)
      : in_(in),
        out_(in.kind, in.name, in.repeat, in.first_layer),
        plan_(plan),
        map_(boost::num_vertices(in.dag())),
        extra_(map_.size()) {
    moe_out_ = last_moe_combine();
  }

  GraphSection run();

 private:
  std::vector<OpVertex> producers(OpVertex v) const;
  OpVertex add(const KernelRole& role, const std::string& name, const Op& op, Stream s,
               const std::vector<OpVertex>& after) {
    OpVertex x = add_kernel(out_, role, name, op, after);
    out_.dag()[x].stream = s;
    return x;
  }
  OpVertex comm(CommGroup g, CommPurpose purpose, Pass pass, CollectiveKind kind, double bytes,
                const std::string& name, const std::vector<OpVertex>& after) {
    int64_t ranks = group_ranks(g, plan_.p);
    int64_t per_node = group_ranks_per_node(g, plan_.p, plan_.gpus_per_node);
    if (kind == CollectiveKind::SendRecv) {
      // A ring's hop is between 2 neighbours; the ring runs at its slowest hop, over the network
      // once the group spans nodes.
      per_node = per_node < ranks ? 1 : 2;
      ranks = 2;
    }
    Op op = collective_op(kind, bytes, ranks, per_node, plan_.act);
    return add(role::collective(g, purpose, pass), name, op, Stream::Comm, after);
  }
  Op sequence_split(const GraphNode& n) const;
  OpVertex ring_attention(const GraphNode& n, const std::vector<OpVertex>& after);
  OpVertex last_moe_combine() const;
  void after_forward(OpVertex v, const GraphNode& n, OpVertex x);
  void after_backward(OpVertex v, const GraphNode& n, OpVertex x);

  const GraphSection& in_;
  GraphSection out_;
  const Plan& plan_;
  std::vector<OpVertex> map_;
  std::vector<std::vector<OpVertex>> extra_;
  OpVertex moe_out_ = 0;
};

std::vector<OpVertex> Rewriter::producers(OpVertex v) const {
  std::vector<OpVertex> after;
  auto [e, end] = boost::in_edges(v, in_.dag());
  for (; e != end; ++e) {
    OpVertex u = boost::source(*e, in_.dag());
    after.push_back(map_[u]);
    for (OpVertex x : extra_[u]) after.push_back(x);
  }
  return distinct(after);
}

// Sequence parallelism: norms, residual adds and their gradients on tokens / tp.
Op Rewriter::sequence_split(const GraphNode& n) const {
  Op op = n.op;
  if (!plan_.p.sp) return op;
  const KernelRole& r = n.role;
  int64_t t = plan_.p.tp;
  bool norm = r.kind == RoleKind::Norm;
  bool add = r.kind == RoleKind::ResidualAdd &&
             (r.pass != Pass::Backward || r.grad == GradKind::BranchSum);
  if (norm)
    if (auto* row = std::get_if<RowOp>(&op.shape)) row->rows /= t;
  if (add)
    if (auto* ew = std::get_if<ElementwiseOp>(&op.shape)) ew->numel /= t;
  return op;
}

// Ring attention over cp ranks (zig-zag chunks): the diagonal step (causal over the rank's own
// tokens), then cp - 1 steps of half a block, each after the send/recv of its K/V chunk.
OpVertex Rewriter::ring_attention(const GraphNode& n, const std::vector<OpVertex>& after) {
  const AttentionOp& a = std::get<AttentionOp>(n.op.shape);
  bool backward = a.backward;
  double bytes = plan_.kv_chunk_bytes * (backward ? 2 : 1);  // + dK, dV going round
  OpVertex step = add(n.role, n.name + ".ring_0", n.op, Stream::Compute, after);
  OpVertex send = 0;
  for (int64_t i = 1; i < plan_.p.cp; ++i) {
    std::vector<OpVertex> send_after = i == 1 ? after : std::vector<OpVertex>{send};
    send = comm(CommGroup::Cp, CommPurpose::KvChunk, n.role.pass, CollectiveKind::SendRecv, bytes,
                n.name + ".cp_send_recv_" + std::to_string(i), send_after);
    AttentionOp half = a;
    half.causal = false;
    half.kv_len = std::max<int64_t>(1, a.kv_len / 2);
    step = add(n.role, n.name + ".ring_" + std::to_string(i), Op{"", half, false}, Stream::Compute,
               {step, send});
  }
  return step;
}

// The MoE MLP's last combine kernel: where its output (a partial sum under TP) is complete.
OpVertex Rewriter::last_moe_combine() const {
  OpVertex last = map_.size();
  for (OpVertex v : launch_order(in_)) {
    const KernelRole& r = in_.dag()[v].role;
    if (r.kind == RoleKind::MoeCombine && forward_pass(r)) last = v;
  }
  return last;
}

void Rewriter::after_forward(OpVertex v, const GraphNode& n, OpVertex x) {
  const KernelRole& r = n.role;
  const Plan& P = plan_;
  double act = dtype_bytes(P.act);
  double full = (double)P.tokens * P.hidden * act;  // one micro-batch's h-wide activation
  bool tp = P.p.tp > 1;
  if (P.p.ep > 1 && r.kind == RoleKind::WeightGemm && r.projection == Projection::ExpertsDown)
    map_[v] = comm(CommGroup::Ep, CommPurpose::Tokens, r.pass, CollectiveKind::AllToAll,
                   P.expert_tokens_bytes(), n.name + ".ep_combine", {x});
  if (!tp) return;
  // Folded, the MoE layer's output is already the rank's sequence shard.
  bool moe_out = r.kind == RoleKind::MoeCombine && v == moe_out_ && !P.p.moe_folded();
  bool embedded = r.kind == RoleKind::Embedding && boost::out_degree(v, in_.dag()) == 0;
  if (row_parallel(r) || moe_out || embedded) {
    CollectiveKind k = P.p.sp ? CollectiveKind::ReduceScatter : CollectiveKind::AllReduce;
    map_[v] = comm(CommGroup::Tp, CommPurpose::Activations, r.pass, k, full,
                   n.name + (P.p.sp ? ".tp_reduce_scatter" : ".tp_all_reduce"), {map_[v]});
  }
  // Folded, the norm before a MoE layer without a shared expert feeds only the router and the
  // experts, which take the rank's shard: nothing to gather.
  bool moe_norm = P.p.moe_folded() && !P.shared_expert && moe_out_ < map_.size() &&
                  r.kind == RoleKind::Norm && r.norm == NormSite::Post;
  if (P.p.sp && r.kind == RoleKind::Norm && !moe_norm)
    map_[v] = comm(CommGroup::Tp, CommPurpose::Activations, r.pass, CollectiveKind::AllGather, full,
                   n.name + ".tp_all_gather", {map_[v]});
  if (r.kind == RoleKind::Loss && r.loss == LossPart::LogSoftmax)  // max, sum, target logit
    map_[v] = comm(CommGroup::Tp, CommPurpose::Activations, r.pass, CollectiveKind::AllReduce,
                   3.0 * P.tokens * 4, n.name + ".tp_all_reduce", {x});
}

// After a backward kernel: the input gradient's collectives of a column-parallel dgrad (hung
// on its wgrad, so that the wgrad runs beside them).
void Rewriter::after_backward(OpVertex v, const GraphNode& n, OpVertex x) {
  const KernelRole& r = n.role;
  const Plan& P = plan_;
  if (r.kind != RoleKind::WeightGemm || r.grad != GradKind::Dgrad) return;
  double full = (double)P.tokens * P.hidden * dtype_bytes(P.act);
  OpVertex wgrad = map_.size();
  auto [e, end] = boost::out_edges(v, in_.dag());
  for (; e != end; ++e) {
    OpVertex w = boost::target(*e, in_.dag());
    if (in_.dag()[w].role.grad == GradKind::Wgrad) wgrad = w;
  }
  std::vector<OpVertex> chain;
  OpVertex last = x;
  if (P.p.ep > 1 && r.projection == Projection::ExpertsGateUp)
    chain.push_back(last = comm(CommGroup::Ep, CommPurpose::Tokens, Pass::Backward,
                                CollectiveKind::AllToAll, P.expert_tokens_bytes(),
                                n.name + ".ep_dispatch", {last}));
  bool folded_experts = P.p.moe_folded() && r.projection == Projection::ExpertsGateUp;
  if (P.p.tp > 1 && column_parallel_input(r) && !folded_experts) {
    CollectiveKind k = P.p.sp ? CollectiveKind::ReduceScatter : CollectiveKind::AllReduce;
    chain.push_back(last =
                        comm(CommGroup::Tp, CommPurpose::InputGrad, Pass::Backward, k, full,
                             n.name + (P.p.sp ? ".tp_reduce_scatter" : ".tp_all_reduce"), {last}));
  }
  if (chain.empty()) return;
  if (wgrad < map_.size())
    extra_[wgrad].push_back(last);
  else
    map_[v] = last;
}

GraphSection Rewriter::run() {
  const Plan& P = plan_;
  double full = (double)P.tokens * P.hidden * dtype_bytes(P.act);
  for (OpVertex v : launch_order(in_)) {
    const GraphNode& n = in_.dag()[v];
    const KernelRole& r = n.role;
    std::vector<OpVertex> after = producers(v);
    bool gemm = r.kind == RoleKind::WeightGemm;
    // Before the kernel: tokens arriving at the experts, gradients gathered for a row-parallel
    // GEMM under sequence parallelism.
    if (P.p.ep > 1 && gemm && forward_pass(r) && r.projection == Projection::ExpertsGateUp)
      after = {comm(CommGroup::Ep, CommPurpose::Tokens, r.pass, CollectiveKind::AllToAll,
                    P.expert_tokens_bytes(), n.name + ".ep_dispatch", after)};
    if (P.p.ep > 1 && gemm && r.grad == GradKind::Dgrad && r.projection == Projection::ExpertsDown)
      after = {comm(CommGroup::Ep, CommPurpose::Tokens, Pass::Backward, CollectiveKind::AllToAll,
                    P.expert_tokens_bytes(), n.name + ".ep_combine", after)};
    if (P.p.sp && gemm && r.grad == GradKind::Dgrad && row_parallel(r))
      after = {comm(CommGroup::Tp, CommPurpose::InputGrad, Pass::Backward,
                    CollectiveKind::AllGather, full, n.name + ".tp_all_gather", after)};
    OpVertex x;
    if (P.p.cp > 1 && r.kind == RoleKind::Attention)
      x = ring_attention(n, after);
    else
      x = add(r, n.name, sequence_split(n), n.stream, after);
    map_[v] = x;
    if (forward_pass(r))
      after_forward(v, n, x);
    else
      after_backward(v, n, x);
  }
  return std::move(out_);
}

}  // namespace

OpGraph build_rank_graph(const ModelConfig& model, const RunConfig& run, const ParallelConfig& p,
                         const ClusterLimits& cluster) {
  // A uniform model is built with one model chunk's layers. Layers of several kinds (DeepSeek's
  // dense first layers, sliding and global layers, Llama 4's dense and MoE layers) are built
  // whole, one section a kind, repeating as often as the model has that kind; predict_parallel
  // gives each model chunk its own count of each (ParallelConfig::chunk_range).
  ModelConfig m = shard_model(model, p);
  RunConfig r = shard_run(run, p);
  const int64_t layers = run.blocks > 0 ? run.blocks : model.layers;
  r.blocks = layer_groups(model, layers).size() == 1 ? p.chunk_layers(layers) : layers;
  bool whole = run.blocks == 0;
  // Build the whole model's sections with one chunk of blocks: the builder leaves out the
  // embedding and head under --blocks, so build those from a one-block graph.
  RunConfig shape = r;
  shape.blocks = 0;
  m.layers = r.blocks;
  OpGraph built = build_graph(m, whole ? shape : r);
  Plan plan{p,
            cluster.gpus_per_node,
            run.activations,
            step_tokens(r),
            model.hidden,
            model.moe.top_k,
            r.seq,
            0};
  plan.shared_expert = model.moe.shared_intermediate > 0;
  plan.kv_chunk_bytes =
      2.0 * (double)step_tokens(r) * m.kv_heads * m.head_dim * dtype_bytes(run.activations);
  OpGraph g;
  g.description = model.name + " " + phase_name(run.phase) + " per rank";
  for (const GraphSection& s : built.sections) g.sections.push_back(Rewriter(s, plan).run());
  return g;
}

OpGraph build_rank_serving_step_graph(const ModelConfig& model, const RunConfig& run,
                                      const ParallelConfig& p, const ClusterLimits& cluster,
                                      int64_t tokens, int64_t sampled) {
  ModelConfig m = shard_model(model, p);
  m.layers = model.layers / p.pp;
  OpGraph built = build_serving_step_graph(m, shard_run(run, p), tokens, sampled);
  Plan plan{p, cluster.gpus_per_node, run.activations, tokens, model.hidden, model.moe.top_k, 0, 0};
  plan.shared_expert = model.moe.shared_intermediate > 0;
  OpGraph g;
  g.description = built.description + " per rank";
  for (const GraphSection& s : built.sections) g.sections.push_back(Rewriter(s, plan).run());
  return g;
}

}  // namespace ridgeline
