// Transformer Engine FP8 training (workloads/fp8_training.h, predict_parallel's fp8 option), by
// rule, both sides of each: fp8 GEMMs are faster than bf16 where they are compute-bound and gain
// little where the step is memory- or launch-bound (the casts eat it); a cast per distinct GEMM
// input, per weight and per output gradient; attention and the LM head stay bf16; current
// scaling adds an amax pass per cast, delayed scaling an amax all-reduce per chunk, blockwise
// neither; fp8 parameter gather halves the blocks' share of ZeRO-1's gather; and the errors.
#include "hardware/cluster_spec.h"
#include "model/parallel_predict.h"
#include "test_helpers.h"
#include "workloads/fp8_training.h"
#include "workloads/sharding.h"

#include <map>

using namespace ridgeline;

namespace {

const ClusterSpec& dgx() {
  static const ClusterSpec c = load_cluster("dgx-h100");
  return c;
}
const GpuSpec& h100() {
  static const GpuSpec g = load_gpu(dgx().gpu);
  return g;
}
const ModelConfig& tiny() {
  static const ModelConfig m = load_model(RIDGELINE_SOURCE_DIR "/examples/models/tiny-llama.json");
  return m;
}
const ModelConfig& llama8b() {
  static const ModelConfig m = load_model("llama-3-8b");
  return m;
}

RunConfig train_run(int64_t seq) {
  RunConfig r;
  r.phase = Phase::Train;
  r.seq = seq;
  r.batch = 1;
  return r;
}
ParallelConfig strategy(int64_t tp, int64_t dp, int64_t global_batch) {
  ParallelConfig p;
  p.tp = tp, p.dp = dp, p.gpus = tp * dp;
  p.sp = tp > 1;
  p.zero = dp > 1 ? 1 : 0;
  p.global_batch = global_batch;
  return p;
}
Fp8Training fp8(Fp8Recipe r, bool gather = false) {
  Fp8Training f;
  f.on = true, f.recipe = r, f.param_gather = gather;
  return f;
}
ParallelPrediction predict(const ModelConfig& m, const RunConfig& r, const ParallelConfig& p,
                           Fp8Training f = {}) {
  ParallelOptions o;
  o.fp8 = f;
  return predict_parallel(m, r, p, dgx(), h100(), o);
}

// Kernels of a section by what they are: fp8 GEMMs, bf16 GEMMs, casts (named *_cast_fp8),
// amax passes, attention kernels in bf16.
struct Census {
  int fp8_gemms = 0, bf16_gemms = 0, casts = 0, amax = 0, bf16_attention = 0;
};
Census census(const GraphSection& s) {
  Census c;
  for (OpVertex v : launch_order(s)) {
    const GraphNode& n = s.dag()[v];
    if (auto* g = std::get_if<GemmOp>(&n.op.shape))
      (g->dtype == DType::Fp8 ? c.fp8_gemms : c.bf16_gemms)++;
    if (auto* a = std::get_if<AttentionOp>(&n.op.shape))
      c.bf16_attention += a->dtype == DType::Bf16;
    if (n.name.find("_cast_fp8") != std::string::npos) ++c.casts;
    if (n.name.find("_amax") != std::string::npos) ++c.amax;
  }
  return c;
}
const GraphSection& section(const OpGraph& g, SectionKind k) {
  for (const GraphSection& s : g.sections)
    if (s.kind == k) return s;
  FAIL("no section");
  return g.sections.front();
}

}  // namespace

TEST_CASE("fp8 training: which GEMMs Transformer Engine runs in fp8", "[fp8]") {
  CHECK(te_fp8_gemm(role::gemm(Projection::Q)));
  CHECK(te_fp8_gemm(role::gemm(Projection::ExpertsDown)));
  CHECK(te_fp8_gemm(role::backward(role::gemm(Projection::Down), GradKind::Wgrad)));
  CHECK_FALSE(te_fp8_gemm(role::gemm(Projection::LmHead)));
  CHECK_FALSE(te_fp8_gemm(role::gemm(Projection::Router)));
  CHECK_FALSE(te_fp8_gemm(role::attention()));
}

TEST_CASE("fp8 training: casts are counted per GEMM input, weight and gradient", "[fp8]") {
  RunConfig r = train_run(128);
  ParallelConfig p = strategy(1, 1, 4);
  OpGraph g = build_rank_graph(tiny(), r, p, {"dgx-h100", 8, 8});
  Fp8Rewrite d = apply_fp8_training(g, fp8(Fp8Recipe::Delayed), 0.25, {});
  // Llama's block: q, k, v (one input), o, gate and up (one input), down: 7 TE GEMMs, 4 inputs.
  CHECK(d.block_te_gemms == 7);
  Census fwd = census(section(d.graph, SectionKind::DecoderBlock));
  CHECK(fwd.fp8_gemms == 7);
  CHECK(fwd.bf16_gemms == 0);
  CHECK(fwd.casts == 7 + 4);  // a weight cast per GEMM, an input cast per distinct input
  CHECK(fwd.amax == 0);       // delayed scaling: amax inside the cast
  CHECK(fwd.bf16_attention == 1);
  Census bwd = census(section(d.graph, SectionKind::BlockBackward));
  CHECK(bwd.fp8_gemms == 14);  // dgrad and wgrad of each
  CHECK(bwd.casts == 7);       // one output-gradient cast shared by each pair
  CHECK(bwd.bf16_attention == 1);
  Census head = census(section(d.graph, SectionKind::Head));
  CHECK(head.fp8_gemms == 0);  // the LM head stays bf16
  CHECK(head.casts == 0);
  // bf16: no casts, no fp8 GEMM.
  CHECK(census(section(g, SectionKind::DecoderBlock)).casts == 0);
  CHECK(census(section(g, SectionKind::DecoderBlock)).fp8_gemms == 0);
  // Current scaling: an amax pass before every cast; blockwise: none.
  Fp8Rewrite c = apply_fp8_training(g, fp8(Fp8Recipe::Current), 0.25, {});
  CHECK(census(section(c.graph, SectionKind::DecoderBlock)).amax == 11);
  CHECK(c.casts == 2 * d.casts);
  Fp8Rewrite b = apply_fp8_training(g, fp8(Fp8Recipe::Blockwise), 0.25, {});
  CHECK(b.casts == d.casts);
  CHECK(census(section(b.graph, SectionKind::DecoderBlock)).amax == 0);
}

TEST_CASE("fp8 training: the weight cast is paid once per step", "[fp8]") {
  RunConfig r = train_run(128);
  OpGraph g = build_rank_graph(tiny(), r, strategy(1, 1, 8), {"dgx-h100", 8, 8});
  auto weight_cast_numel = [&](double share) {
    Fp8Rewrite d = apply_fp8_training(g, fp8(Fp8Recipe::Delayed), share, {});
    const GraphSection& s = section(d.graph, SectionKind::DecoderBlock);
    for (OpVertex v : launch_order(s))
      if (s.dag()[v].name == "q_proj.weight_cast_fp8")
        return std::get<ElementwiseOp>(s.dag()[v].op.shape).numel;
    return int64_t{0};
  };
  int64_t q_weight = 256 * 256;  // q_proj: heads x head_dim by hidden
  CHECK(weight_cast_numel(1.0) == q_weight);
  CHECK(weight_cast_numel(1.0 / 8) == q_weight / 8);
}

TEST_CASE("fp8 training: fp8 GEMMs are faster when compute-bound", "[fp8]") {
  RunConfig r = train_run(4096);
  ParallelConfig p = strategy(1, 1, 4);
  ParallelPrediction bf = predict(llama8b(), r, p),
                     f8 = predict(llama8b(), r, p, fp8(Fp8Recipe::Delayed));
  // Llama-3-8B at 4096 tokens a micro-batch: its GEMMs are compute-bound; fp8's 2x peak (at
  // 0.86 efficiency), less the casts and bf16 attention, leaves a 1.2-1.6x faster step.
  CHECK(f8.total_us < bf.total_us / 1.2);
  CHECK(f8.total_us > bf.total_us / 1.6);
  // MFU against the fp8 peak: twice bf16's peak.
  CHECK(f8.peak_flops_per_s == Approx(2 * bf.peak_flops_per_s).epsilon(0.02));
}

TEST_CASE("fp8 training: little gain when memory- or launch-bound", "[fp8]") {
  RunConfig r = train_run(128);
  ParallelConfig p = strategy(1, 1, 4);
  ParallelPrediction bf = predict(tiny(), r, p),
                     f8 = predict(tiny(), r, p, fp8(Fp8Recipe::Delayed));
  // 128 tokens of a 256-wide model: the GEMMs are tiny, the casts add kernels: no speed-up.
  CHECK(f8.total_us > bf.total_us * 0.95);
}

TEST_CASE("fp8 training: delayed scaling's amax all-reduce, current scaling's amax passes",
          "[fp8]") {
  RunConfig r = train_run(4096);
  ParallelConfig one = strategy(1, 1, 4), eight = strategy(1, 8, 32);
  // One GPU: no amax reduction; delayed == blockwise (the same casts), current slower.
  double d1 = predict(llama8b(), r, one, fp8(Fp8Recipe::Delayed)).total_us;
  double b1 = predict(llama8b(), r, one, fp8(Fp8Recipe::Blockwise)).total_us;
  double c1 = predict(llama8b(), r, one, fp8(Fp8Recipe::Current)).total_us;
  CHECK(d1 == Approx(b1).epsilon(1e-12));
  CHECK(c1 > b1);
  // Eight data-parallel GPUs: delayed adds an exposed all-reduce per chunk forward and backward.
  ParallelPrediction d8 = predict(llama8b(), r, eight, fp8(Fp8Recipe::Delayed));
  ParallelPrediction b8 = predict(llama8b(), r, eight, fp8(Fp8Recipe::Blockwise));
  int dp = (int)CommGroup::Dp;
  CHECK(d8.total_us > b8.total_us);
  CHECK(d8.exposed_comm_us[dp] > b8.exposed_comm_us[dp]);
}

TEST_CASE("fp8 training: fp8 parameter gather shrinks ZeRO-1's all-gather", "[fp8]") {
  RunConfig r = train_run(4096);
  ParallelConfig p = strategy(1, 8, 32);
  ParallelPrediction plain = predict(llama8b(), r, p, fp8(Fp8Recipe::Current));
  ParallelPrediction gathered = predict(llama8b(), r, p, fp8(Fp8Recipe::Current, true));
  int dp = (int)CommGroup::Dp;
  CHECK(gathered.comm_us[dp] < plain.comm_us[dp]);
  CHECK(gathered.total_us < plain.total_us);
  // bf16 training is unchanged by any of this.
  CHECK(predict(llama8b(), r, p).comm_us[dp] > gathered.comm_us[dp]);
}

// The tensor-parallel all-gathers of one section, by name: bytes and dtype.
std::map<std::string, CollectiveOp> tp_gathers(const GraphSection& s) {
  std::map<std::string, CollectiveOp> out;
  for (OpVertex v : launch_order(s)) {
    const GraphNode& n = s.dag()[v];
    auto* c = std::get_if<CollectiveOp>(&n.op.shape);
    if (c && c->kind == CollectiveKind::AllGather && n.role.group == CommGroup::Tp)
      out[n.name] = *c;
  }
  return out;
}
int64_t elements_named(const GraphSection& s, const std::string& name) {
  for (OpVertex v : launch_order(s))
    if (s.dag()[v].name == name)
      if (auto* e = std::get_if<ElementwiseOp>(&s.dag()[v].op.shape)) return e->numel;
  return -1;
}

TEST_CASE("fp8 training: sequence-parallel all-gathers carry fp8 under per-tensor scaling",
          "[fp8]") {
  RunConfig r = train_run(128);
  OpGraph g = build_rank_graph(tiny(), r, strategy(4, 1, 4), {"dgx-h100", 8, 8});
  const GraphSection& bf_fwd = section(g, SectionKind::DecoderBlock);
  std::map<std::string, CollectiveOp> bf = tp_gathers(bf_fwd);
  REQUIRE(bf.size() == 2);  // the two norms' outputs, before q/k/v and gate/up
  for (Fp8Recipe recipe : {Fp8Recipe::Delayed, Fp8Recipe::Current}) {
    Fp8Rewrite d = apply_fp8_training(g, fp8(recipe), 0.25, {});
    const GraphSection& fwd = section(d.graph, SectionKind::DecoderBlock);
    std::map<std::string, CollectiveOp> f8 = tp_gathers(fwd);
    REQUIRE(f8.size() == bf.size());
    for (const auto& [name, c] : f8) {
      CHECK(c.dtype == DType::Fp8);
      CHECK(c.bytes == Approx(bf.at(name).bytes / 2));  // 1 byte an element instead of 2
    }
    // The rank's shard is cast (a quarter of the 128 x 256 gathered elements), the gathered
    // fp8 tensor transposed; no cast of the gathered input.
    CHECK(elements_named(fwd, "q_proj.input_shard_cast_fp8") == 128 * 256 / 4);
    CHECK(elements_named(fwd, "q_proj.input_transpose_fp8") == 128 * 256);
    CHECK(elements_named(fwd, "q_proj.input_cast_fp8") == -1);
    // The output gradient gathered before a row-parallel dgrad: the same, in the backward.
    const GraphSection& bwd = section(d.graph, SectionKind::BlockBackward);
    std::map<std::string, CollectiveOp> b8 = tp_gathers(bwd);
    REQUIRE_FALSE(b8.empty());
    for (const auto& [name, c] : b8) CHECK(c.dtype == DType::Fp8);
    // The casts and the transpose are compute kernels of the GEMM they feed; the collectives
    // stay on the communication stream.
    for (OpVertex v : launch_order(fwd)) {
      const GraphNode& k = fwd.dag()[v];
      CHECK((k.role.kind == RoleKind::Collective) == (k.stream == Stream::Comm));
    }
    // Current scaling: the shards' amax all-reduced over the TP group before each shard cast.
    int amax_reduces = 0;
    for (OpVertex v : launch_order(fwd))
      if (fwd.dag()[v].name.find(".amax_all_reduce") != std::string::npos) {
        ++amax_reduces;
        CHECK(fwd.dag()[v].stream == Stream::Comm);
        CHECK(std::get<CollectiveOp>(fwd.dag()[v].op.shape).bytes == 4);
      }
    CHECK(amax_reduces == (recipe == Fp8Recipe::Current ? 2 : 0));
  }
  // Blockwise (and MXFP8) scales: the gather stays in bf16 and the gathered input is cast.
  Fp8Rewrite b = apply_fp8_training(g, fp8(Fp8Recipe::Blockwise), 0.25, {});
  const GraphSection& bfwd = section(b.graph, SectionKind::DecoderBlock);
  for (const auto& [name, c] : tp_gathers(bfwd)) {
    CHECK(c.dtype == DType::Bf16);
    CHECK(c.bytes == bf.at(name).bytes);
  }
  CHECK(elements_named(bfwd, "q_proj.input_cast_fp8") == 128 * 256);
}

TEST_CASE("fp8 training: the fp8 gather makes a tensor-parallel step faster, not a TP 1 one",
          "[fp8]") {
  RunConfig r = train_run(4096);
  // TP 4 with sequence parallelism: the gathers are half the bytes, the full-size casts a
  // transpose; per-tensor current scaling (gathered in fp8) against blockwise (in bf16, with the
  // same casts otherwise and no amax passes: current scaling's amax passes make the fp8 gather's
  // gain a lower bound).
  ParallelConfig tp4 = strategy(4, 1, 4), one = strategy(1, 1, 4);
  double delayed4 = predict(llama8b(), r, tp4, fp8(Fp8Recipe::Delayed)).total_us;
  double block4 = predict(llama8b(), r, tp4, fp8(Fp8Recipe::Blockwise)).total_us;
  CHECK(delayed4 < block4 * 0.995);
  // TP 1: no gather, delayed and blockwise price the same.
  CHECK(predict(llama8b(), r, one, fp8(Fp8Recipe::Delayed)).total_us ==
        Approx(predict(llama8b(), r, one, fp8(Fp8Recipe::Blockwise)).total_us).epsilon(1e-12));
}

TEST_CASE("fp8 training: errors", "[fp8][errors]") {
  RunConfig r = train_run(128);
  ParallelConfig p = strategy(1, 1, 4);
  GpuSpec a100 = load_gpu("a100-sxm-80gb");
  CHECK_THROWS_WITH(check_fp8_training(fp8(Fp8Recipe::Delayed), a100, r, p),
                    Catch::Contains("--precision fp8: a100-sxm-80gb has no fp8 tensor cores") &&
                        Catch::Contains("a100-sxm-80gb.json"));
  CHECK_THROWS_WITH(check_fp8_training(fp8(Fp8Recipe::Mxfp8), h100(), r, p),
                    Catch::Contains("--fp8-recipe mxfp8: microscaling FP8 needs Blackwell") &&
                        Catch::Contains("h100-sxm is hopper"));
  CHECK_NOTHROW(check_fp8_training(fp8(Fp8Recipe::Mxfp8), load_gpu("b200"), r, p));
  CHECK_THROWS_WITH(check_fp8_training(fp8(Fp8Recipe::Delayed, true), h100(), r, p),
                    Catch::Contains("--fp8-param-gather: the distributed optimizer's"));
  CHECK_NOTHROW(check_fp8_training(fp8(Fp8Recipe::Delayed, true), h100(), r, strategy(1, 8, 8)));
  RunConfig prefill = r;
  prefill.phase = Phase::Prefill;
  CHECK_THROWS_WITH(check_fp8_training(fp8(Fp8Recipe::Delayed), h100(), prefill, p),
                    Catch::Contains("--precision fp8: Transformer Engine FP8 is a training"));
  CHECK_NOTHROW(check_fp8_training(Fp8Training{}, a100, prefill, p));  // bf16: nothing to check
  CHECK(parse_fp8_recipe("current") == Fp8Recipe::Current);
  CHECK_FALSE(parse_fp8_recipe("per-tensor").has_value());
}
