// The forward sections rewritten as torch.autocast runs them over fp32 parameters; see
// autocast.h. Each section is copied node by node in launch order into a new DAG: the casts
// autocast leaves out are dropped (their consumers inherit their producers), the fp32 kernels
// get their dtype, and the casts autocast adds are inserted before the GEMM or attention kernel
// that reads them. Which rule applies is read from each kernel's role, never from its name.
#include "workloads/autocast.h"

#include "workloads/builder_ops.h"

#include <algorithm>
#include <map>

namespace ridgeline {

bool under_autocast(const RunConfig& run) {
  return run.master_weights == MasterWeights::Fp32;
}

DType param_dtype(const RunConfig& run) {
  return under_autocast(run) ? DType::Fp32 : run.weights;
}

namespace {

// The dtype a kernel writes.
DType written_dtype(const Op& op) {
  if (auto* x = std::get_if<ElementwiseOp>(&op.shape)) return x->out_dtype.value_or(x->dtype);
  if (auto* r = std::get_if<RowOp>(&op.shape)) return r->dtype;
  if (auto* r = std::get_if<ReduceOp>(&op.shape)) return r->dtype;
  if (auto* g = std::get_if<GemmOp>(&op.shape)) return g->dtype;
  if (auto* a = std::get_if<AttentionOp>(&op.shape)) return a->dtype;
  return DType::Bf16;
}

// The elements a kernel writes, for the cast of its output (elementwise and row kernels: the
// producers autocast meets before attention).
int64_t written_numel(const Op& op) {
  if (auto* x = std::get_if<ElementwiseOp>(&op.shape)) return x->numel;
  if (auto* r = std::get_if<RowOp>(&op.shape)) return r->rows * r->cols;
  if (auto* g = std::get_if<GemmOp>(&op.shape)) return (int64_t)(g->problems() * g->m * g->n);
  return 1;
}

// .to(torch.float32) of an fp32 tensor and cos/sin .to(x.dtype) with an fp32 x launch nothing.
bool dropped(const GraphNode& n) {
  const KernelRole& r = n.role;
  if (r.kind == RoleKind::Norm)
    return r.norm_part == NormPart::ToFp32 || r.norm_part == NormPart::ToInput;
  auto* x = std::get_if<ElementwiseOp>(&n.op.shape);
  return r.kind == RoleKind::RopeTable && x && x->out_dtype;
}

void set_dtype(Op& op, DType d) {
  if (auto* x = std::get_if<ElementwiseOp>(&op.shape)) x->dtype = d;
  if (auto* r = std::get_if<RowOp>(&op.shape)) r->dtype = d;
  if (auto* r = std::get_if<ReduceOp>(&op.shape)) r->dtype = d;
}

// A kernel's op as it runs over the fp32 residual stream.
Op promoted(const GraphNode& n) {
  Op op = n.op;
  const KernelRole& r = n.role;
  auto* x = std::get_if<ElementwiseOp>(&op.shape);
  if (r.kind == RoleKind::Norm || r.kind == RoleKind::Embedding) set_dtype(op, DType::Fp32);
  if (r.kind == RoleKind::ResidualAdd && x) {  // fp32 + bf16: ATen's dynamic-cast (unrolled) path
    x->dtype = DType::Fp32;
    x->strided = true;
  }
  // bf16 q (or rotate_half(q)) times the fp32 table: an fp32 product; their sum is fp32.
  if (x && (r.is_rope_part(RopePart::MulCos) || r.is_rope_part(RopePart::MulSin)))
    x->out_dtype = DType::Fp32;
  if (x && r.is_rope_part(RopePart::Add)) x->dtype = DType::Fp32;
  return op;
}

class Rewriter {
 public:
  Rewriter(const GraphSection& from)
      : from_(from), to_(from.kind, from.name, from.repeat, from.first_layer) {}

  GraphSection run() {
    for (OpVertex v : launch_order(from_)) copy(v);
    return std::move(to_);
  }

 private:
  const GraphSection& from_;
  GraphSection to_;
  std::map<OpVertex, std::vector<OpVertex>> made_;  // old vertex -> what its consumers wait on
  std::map<OpVertex, DType> dtype_;                 // old vertex -> the dtype it writes

  OpVertex add(const GraphNode& n, const KernelRole& role, const std::string& name, const Op& op,
               const std::vector<OpVertex>& after) {
    OpVertex v = add_kernel(to_, role, name, op, after);
    to_.dag()[v].stream = n.stream;
    return v;
  }

  // The casts autocast inserts before `n` (a weight GEMM or attention) and its producers then.
  std::vector<OpVertex> casts_before(OpVertex v, const GraphNode& n, const Op& op) {
    std::vector<OpVertex> after;
    auto* g = std::get_if<GemmOp>(&op.shape);
    auto* a = std::get_if<AttentionOp>(&op.shape);
    bool gemm = g && n.role.kind == RoleKind::WeightGemm;
    DType to = gemm ? g->dtype : a ? a->dtype : DType::Bf16;
    for (auto [e, end] = boost::in_edges(v, from_.dag()); e != end; ++e) {
      OpVertex p = boost::source(*e, from_.dag());
      const std::vector<OpVertex>& in = made_.at(p);
      if ((!gemm && !a) || dtype_.at(p) != DType::Fp32) {
        after.insert(after.end(), in.begin(), in.end());
        continue;
      }
      const GraphNode& pn = from_.dag()[p];
      int64_t numel = gemm ? (int64_t)(g->problems() * g->m * g->k) : written_numel(pn.op);
      Tensor t = a ? pn.role.tensor : Tensor::None;
      after.push_back(add(n, role::autocast(CastOf::Input, n.role.projection, t),
                          n.name + ".autocast_input", cast_op(numel, DType::Fp32, to), in));
    }
    if (gemm) {  // the weight [n, k] of every group, cast once a forward
      int64_t weights = (int64_t)std::max(1.0, g->groups) * g->n * g->k;
      after.push_back(add(n, role::autocast(CastOf::Weight, n.role.projection),
                          n.name + ".autocast_weight", cast_op(weights, DType::Fp32, to), {}));
    }
    return distinct(after);
  }

  void copy(OpVertex v) {
    const GraphNode& n = from_.dag()[v];
    std::vector<OpVertex> in;
    for (auto [e, end] = boost::in_edges(v, from_.dag()); e != end; ++e) {
      const std::vector<OpVertex>& p = made_.at(boost::source(*e, from_.dag()));
      in.insert(in.end(), p.begin(), p.end());
    }
    if (dropped(n)) {  // its consumers read its input, already in fp32
      made_[v] = distinct(in);
      dtype_[v] = DType::Fp32;
      return;
    }
    Op op = promoted(n);
    bool autocast = n.role.kind == RoleKind::WeightGemm || n.role.kind == RoleKind::Attention;
    if (autocast && n.role.pass == Pass::Forward) in = casts_before(v, n, op);
    made_[v] = {add(n, n.role, n.name, op, distinct(in))};
    dtype_[v] = written_dtype(op);
  }
};

}  // namespace

void apply_autocast(OpGraph& g, const RunConfig& run) {
  if (!under_autocast(run)) return;
  for (GraphSection& s : g.sections) {
    bool forward = s.kind == SectionKind::Embedding || s.kind == SectionKind::DecoderBlock ||
                   s.kind == SectionKind::Head;
    if (forward) s = Rewriter(s).run();
  }
}

}  // namespace ridgeline
