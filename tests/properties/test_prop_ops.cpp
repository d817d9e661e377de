// Properties of single kernels (`ridgeline op`) over random shapes, dtypes and every GPU preset:
// times are finite and positive and made of their terms; faster hardware never makes a kernel
// slower; more work never takes less time (but for the rules named where they apply); FLOPs and
// bytes match the closed forms of workloads/op_math.h, written out again here.
#include "generators.h"

#include "common/errors.h"
#include "model/cost_models.h"
#include "model/op_cost.h"
#include "workloads/op_math.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <sstream>

using namespace ridgeline;
using namespace ridgeline::prop;

namespace {

constexpr double kRel = 1e-9;  // round-off between two evaluations of one formula
// gemm_cost.cpp's better(): a tile within 0.5% of the best that wastes less work wins.
constexpr double kTileTie = 0.005;

std::string describe(const Op& op) {
  std::ostringstream s;
  s << op_family(op);
  if (auto* g = std::get_if<GemmOp>(&op.shape))
    s << " m=" << g->m << " n=" << g->n << " k=" << g->k << " batch=" << g->batch << " "
      << dtype_name(g->dtype);
  if (auto* a = std::get_if<AttentionOp>(&op.shape))
    s << " b=" << a->batch << " h=" << a->heads << "/" << a->kv_heads << " d=" << a->head_dim
      << " q=" << a->q_len << " kv=" << a->kv_len << (a->causal ? " causal" : "")
      << (a->backward ? " backward" : "");
  if (auto* e = std::get_if<ElementwiseOp>(&op.shape))
    s << " " << elementwise_kind_name(e->kind) << " numel=" << e->numel
      << (e->strided ? " strided" : "");
  if (auto* r = std::get_if<ReduceOp>(&op.shape)) s << " numel=" << r->numel;
  if (auto* r = std::get_if<RowOp>(&op.shape)) s << " rows=" << r->rows << " cols=" << r->cols;
  s << (op.warm_l2 ? " warm" : "");
  return s.str();
}

// nullopt where the GPU lacks the unit (e.g. tf32 on a GPU without it): an InputError, not a time.
std::optional<OpCost> try_predict(const Op& op, const GpuSpec& g) {
  try {
    return predict_op(op, g);
  } catch (const InputError&) {
    return std::nullopt;
  }
}

bool finite_nonnegative(double x) {
  return std::isfinite(x) && x >= 0;
}

}  // namespace

TEST_CASE("property: every op's time is finite, positive and made of its terms", "[property]") {
  Property p("op time finite, positive, >= overhead + max(terms)", 3000);
  for (int i = 0; i < p.cases(); ++i) {
    const GpuSpec& g = gpu(p.pick(gpu_names()));
    Op op = random_op(p, g);
    auto c = try_predict(op, g);
    if (!c) {
      p.exempt("unit the GPU lacks (InputError)");
      continue;
    }
    INFO("case " << i << " on " << g.name << ": " << describe(op));
    REQUIRE(std::isfinite(c->time_us));
    REQUIRE(c->time_us > 0);
    for (double x :
         {c->compute_us, c->hbm_us, c->l2_us, c->smem_us, c->overhead_us, c->roofline_us,
          c->bytes.hbm, c->bytes.l2, c->bytes.smem, c->matrix_flops, c->vector_flops, c->sfu_ops})
      REQUIRE(finite_nonnegative(x));
    double terms = std::max({c->compute_us, c->hbm_us, c->l2_us, c->smem_us});
    REQUIRE(c->time_us >= (c->overhead_us + terms) * (1 - kRel));
    // A full reduction bound by its blocks' load latency (reduce_cost's walk: few blocks, each
    // waiting a memory latency per batch of loads in flight) holds that time in no term.
    if (std::holds_alternative<ReduceOp>(op.shape) && c->bottleneck == Bottleneck::Latency) {
      p.exempt("reduce bound by its blocks' load latency (no term holds it)");
      continue;
    }
    REQUIRE(c->time_us <=
            (c->overhead_us + c->compute_us + c->hbm_us + c->l2_us + c->smem_us) * (1 + kRel));
  }
}

TEST_CASE("property: faster hardware never makes an op slower", "[property]") {
  Property p("faster HBM/L2/smem/clock/peak/launch never slows an op", 3000);
  for (int i = 0; i < p.cases(); ++i) {
    const GpuSpec& g = gpu(p.pick(gpu_names()));
    Knob knob = p.pick(std::vector<Knob>(std::begin(kAllKnobs), std::end(kAllKnobs)));
    double factor = p.real(1.01, 3);
    Op op = random_op(p, g);
    auto base = try_predict(op, g);
    if (!base) continue;
    OpCost fast = predict_op(op, faster(g, knob, factor));
    INFO("case " << i << " on " << g.name << ", " << knob_name(knob) << " x" << factor << ": "
                 << describe(op) << ": " << base->time_us << " -> " << fast.time_us << " us");
    if (fast.time_us <= base->time_us * (1 + kRel)) continue;
    // The GEMM tile rule: among tiles within 0.5% of each other the less wasteful wins, so a
    // faster GPU may pick a tile up to 0.5% slower than the one it had.
    bool tile_changed =
        fast.detail.tile_m != base->detail.tile_m || fast.detail.tile_n != base->detail.tile_n;
    if (std::holds_alternative<GemmOp>(op.shape) && tile_changed &&
        fast.time_us <= base->time_us * (1 + kTileTie)) {
      p.exempt("GEMM tile tie (0.5%)");
      continue;
    }
    FAIL("slower on faster hardware");
  }
}

namespace {

// The op with one dimension doubled (doubling keeps every row's alignment or improves it), and
// what grew.
Op more_work(Property& p, const Op& op, std::string& what) {
  Op m = op;
  if (auto* g = std::get_if<GemmOp>(&m.shape)) {
    int d = (int)p.uniform(0, 3);
    int64_t* dims[] = {&g->m, &g->n, &g->k, &g->batch};
    *dims[d] *= 2;
    what = std::string("gemm ") + "mnkb"[d];
  } else if (auto* a = std::get_if<AttentionOp>(&m.shape)) {
    int d = (int)p.uniform(0, 3);
    if (d == 0) a->batch *= 2, what = "batch";
    if (d == 1) a->kv_len *= 2, what = "kv_len";
    if (d == 2) a->q_len *= 2, a->kv_len += a->q_len / 2, what = "q_len and kv_len";
    if (d == 3) a->heads *= 2, a->kv_heads *= 2, what = "heads";
  } else if (auto* e = std::get_if<ElementwiseOp>(&m.shape)) {
    e->numel *= 2, what = "numel";
  } else if (auto* r = std::get_if<ReduceOp>(&m.shape)) {
    r->numel *= 2, what = "numel";
  } else if (auto* r = std::get_if<RowOp>(&m.shape)) {
    if (p.coin())
      r->rows *= 2, what = "rows";
    else
      r->cols *= 2, what = "cols";
  }
  return m;
}

}  // namespace

TEST_CASE("property: more work never takes less time (but for named rules)", "[property]") {
  Property p("more work (M/N/K, batch, q/kv, heads, numel, rows/cols) never faster", 3000);
  for (int i = 0; i < p.cases(); ++i) {
    const GpuSpec& g = gpu(p.pick(gpu_names()));
    Op op = random_op(p, g);
    op.warm_l2 = false;  // a warm op's L2 hits fall as it grows: not more work at one place
    auto base = try_predict(op, g);
    if (!base) continue;
    std::string what;
    Op bigger = more_work(p, op, what);
    OpCost more = predict_op(bigger, g);
    INFO("case " << i << " on " << g.name << ": " << describe(op) << ", doubled " << what << ": "
                 << base->time_us << " -> " << more.time_us << " us, split " << base->detail.split
                 << " -> " << more.detail.split);
    if (more.time_us >= base->time_us * (1 - kRel)) continue;
    if (std::holds_alternative<ReduceOp>(op.shape) && more.detail.ctas != base->detail.ctas) {
      // ATen's setReduceConfig (reduce_cost): one 512-thread block walks an input of under
      // 512 x 256 elements; above, the input is split over more blocks, which finish sooner.
      p.exempt("reduce split over more blocks (ATen setReduceConfig)");
      continue;
    }
    if (!std::holds_alternative<GemmOp>(op.shape) &&
        !std::holds_alternative<AttentionOp>(op.shape) &&
        more.detail.active_sms > base->detail.active_sms) {
      // A memory-bound kernel runs one CTA per cta_bytes of its operands (rows for a row op):
      // below one CTA per SM, a larger op spreads over more SMs, each pulling its own share of
      // the bandwidth, and its fixed phases shrink (stream_cost, add_unhidden_phase).
      p.exempt("more active SMs (CTAs = bytes / cta_bytes below the SM count)");
      continue;
    }
    if (auto* r = std::get_if<RowOp>(&op.shape); r && r->impl == RowImpl::PyTorch) {
      // ATen's softmax forward picks its kernel by row width (aten_softmax_kernel): the
      // 2048-column warp kernel is slower than the register kernel past it, as measured (H200
      // row grid: 7.9 us for one bf16 row of 2048, 2.5 us for 2880).
      if (r->kind == RowOpKind::Softmax &&
          aten_softmax_kernel(*r) != aten_softmax_kernel(std::get<RowOp>(bigger.shape))) {
        p.exempt("ATen softmax kernel changed with the width (host_softmax's limits)");
        continue;
      }
      // Its backward over rows larger than shared memory (max_smem_per_sm_bytes) is priced as
      // three streams at full bandwidth without the serial walk (pytorch_row_cost): crossing
      // that limit can be much faster. Reported as doubtful: that kernel walks a row too.
      double limit = g.compute.max_smem_per_sm_bytes.value;
      auto row_bytes = [](const Op& o) {
        const RowOp& x = std::get<RowOp>(o.shape);
        return (double)x.cols * dtype_bytes(x.dtype);
      };
      if (r->kind == RowOpKind::SoftmaxBackward && row_bytes(op) <= limit &&
          row_bytes(bigger) > limit) {
        p.exempt("ATen softmax backward switch above shared memory");
        continue;
      }
    }
    if (auto* a = std::get_if<AttentionOp>(&op.shape);
        a && a->q_len == 1 && std::get<AttentionOp>(bigger.shape).q_len > 1) {
      // attention_cost.cpp lay_out: one query runs the decode kernel (GQA heads packed into one
      // item, split-KV only when not causal), more run the prefill kernel over every query head;
      // the switch can be faster for a causal decode with few items (see the report).
      p.exempt("decode -> prefill attention kernel (q_len 1 -> > 1)");
      continue;
    }
    if (std::holds_alternative<GemmOp>(op.shape) &&
        (more.detail.tile_m != base->detail.tile_m || more.detail.tile_n != base->detail.tile_n) &&
        more.time_us >= base->time_us * (1 - kTileTie)) {
      p.exempt("GEMM tile tie (0.5%)");  // the larger problem's tile wastes less, within 0.5%
      continue;
    }
    if (more.detail.alignment_bytes > base->detail.alignment_bytes) {
      // gemm_cost.cpp alignment_efficiency: doubling K (or N) makes the rows' bytes divisible by
      // a higher power of two, and better-aligned rows run the faster load path.
      p.exempt("GEMM row alignment improved");
      continue;
    }
    if (more.detail.split != base->detail.split) {
      // Split-K (GEMM) and split-KV (decode attention) change with the shape: a split that
      // fills idle SMs can make a larger problem faster (gemm_cost.cpp choose_split_k,
      // attention_cost.cpp's decode split rule).
      p.exempt(std::holds_alternative<GemmOp>(op.shape) ? "split-K choice changed"
                                                        : "split-KV choice changed");
      continue;
    }
    FAIL("more work took less time");
  }
}

TEST_CASE("property: FLOPs and bytes match the closed forms", "[property]") {
  Property p("FLOPs and bytes = closed forms (GEMM 2MNK, attention 4 b h pairs d, ...)", 3000);
  for (int i = 0; i < p.cases(); ++i) {
    const GpuSpec& g = gpu(p.pick(gpu_names()));
    Op op = random_op(p, g);
    auto c = try_predict(op, g);
    if (!c) continue;
    OpWork w = op_work(op);
    INFO("case " << i << " on " << g.name << ": " << describe(op));
    REQUIRE(c->matrix_flops == Approx(w.matrix_flops).epsilon(kRel));
    REQUIRE(c->vector_flops == Approx(w.vector_flops).epsilon(kRel));
    if (auto* m = std::get_if<GemmOp>(&op.shape)) {
      double b = (double)m->batch, e = dtype_bytes(m->dtype);
      double out = m->dtype == DType::Fp8 ? 2 : e;
      REQUIRE(w.matrix_flops == Approx(2 * b * m->m * m->n * m->k).epsilon(kRel));
      REQUIRE(w.bytes_read == Approx(b * (m->m + m->n) * m->k * e).epsilon(kRel));
      REQUIRE(w.bytes_written == Approx(b * m->m * m->n * out).epsilon(kRel));
      // Every operand crosses HBM at least once (cold inputs), however it is tiled.
      REQUIRE(c->bytes.hbm >= w.unique_bytes() * (1 - kRel));
    }
    if (auto* a = std::get_if<AttentionOp>(&op.shape)) {
      double q = (double)a->q_len, kv = (double)a->kv_len;
      // Causal, bottom-right aligned: query i (of q) sees kv - q + i + 1 keys.
      double pairs = !a->causal ? q * kv : (kv >= q ? q * kv - q * (q - 1) / 2 : kv * (kv + 1) / 2);
      double fwd = 4.0 * a->batch * a->heads * pairs * a->head_dim;
      REQUIRE(w.matrix_flops == Approx(a->backward ? 2.5 * fwd : fwd).epsilon(kRel));
      double e = dtype_bytes(a->dtype), e_kv = dtype_bytes(a->kv_storage());
      double qb = (double)a->batch * a->heads * q * a->head_dim * e;
      double kvb = 2.0 * a->batch * a->kv_heads * kv * a->head_dim * e_kv;
      REQUIRE(w.bytes_read == Approx(a->backward ? 3 * qb + kvb : qb + kvb).epsilon(kRel));
    }
    if (auto* x = std::get_if<ElementwiseOp>(&op.shape)) {
      ElementwiseInfo info = elementwise_info(x->kind);
      double n = (double)x->numel, e = dtype_bytes(x->dtype);
      REQUIRE(w.bytes_read == Approx(n * e * info.inputs).epsilon(kRel));
      REQUIRE(w.bytes_written == Approx(n * e * info.outputs).epsilon(kRel));
    }
    if (auto* r = std::get_if<ReduceOp>(&op.shape)) {
      REQUIRE(w.bytes_read == Approx((double)r->numel * dtype_bytes(r->dtype)).epsilon(kRel));
      REQUIRE(w.vector_flops == Approx((double)r->numel).epsilon(kRel));
    }
    if (auto* r = std::get_if<RowOp>(&op.shape))
      REQUIRE(w.bytes_written >= (double)r->rows * r->cols * dtype_bytes(r->dtype) * (1 - kRel));
  }
}
