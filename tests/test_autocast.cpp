// Training with fp32 master parameters under torch.autocast (--master-weights fp32,
// workloads/autocast.h) and torch.amp.GradScaler's kernels (--grad-scaler): the casts autocast
// adds (weights once a forward, fp32 inputs per call), the fp32 residual stream and norms, the
// gradients cast back, fp32 memory, and one test per error. The kernel counts are checked against
// the H200 profiles of transformers' Llama (validate/data/h200-sxm-hf-2026-12-01.json, fp32amp).
#include "hf_records.h"
#include "model/prediction.h"
#include "test_helpers.h"
#include "validate/workload_dataset.h"
#include "workloads/autocast.h"
#include "workloads/graph_builder.h"

#include <catch2/catch.hpp>

using namespace ridgeline;
using test::require_input_error;

namespace {

ModelConfig llama_l8() {
  ModelConfig m = load_model("llama-3-8b");
  m.layers = 8;
  return m;
}

RunConfig train_run(MasterWeights w) {
  RunConfig run;
  run.phase = Phase::Train;
  run.seq = 2048;
  run.runtime = load_runtime("hf-transformers");
  run.launch = LaunchMode::Eager;
  run.master_weights = w;
  return run;
}

int64_t kernels(const OpGraph& g) {
  int64_t n = 0;
  for (const auto& s : g.sections) n += s.repeat * (int64_t)boost::num_vertices(s.dag());
  return n;
}

// Nodes of `kind` sections whose role satisfies `pred`, counted once per section repeat.
template <class P>
int64_t count(const OpGraph& g, SectionKind kind, P pred) {
  int64_t n = 0;
  for (const auto& s : g.sections) {
    if (s.kind != kind) continue;
    for (OpVertex v : launch_order(s)) n += pred(s.dag()[v]) ? 1 : 0;
  }
  return n;
}

bool weight_cast(const GraphNode& n) {
  return n.role.kind == RoleKind::Autocast && n.role.cast == CastOf::Weight;
}
bool input_cast(const GraphNode& n) {
  return n.role.kind == RoleKind::Autocast && n.role.cast == CastOf::Input;
}

const nlohmann::json& record(const std::string& id) {
  return test::measured_record("/validate/data/h200-sxm-hf-2026-12-01.json", id);
}

}  // namespace

TEST_CASE("autocast: each weight GEMM casts its fp32 weight once a forward", "[autocast]") {
  OpGraph amp = build_graph(llama_l8(), train_run(MasterWeights::Fp32));
  OpGraph none = build_graph(llama_l8(), train_run(MasterWeights::None));
  CHECK(count(amp, SectionKind::DecoderBlock, weight_cast) == 7);  // q k v o gate up down
  CHECK(count(amp, SectionKind::Head, weight_cast) == 1);          // lm_head
  CHECK(count(none, SectionKind::DecoderBlock, weight_cast) == 0);
  for (const auto& s : amp.sections)
    for (OpVertex v : launch_order(s))
      if (weight_cast(s.dag()[v]) && s.dag()[v].role.pass == Pass::Forward) {
        const auto& x = std::get<ElementwiseOp>(s.dag()[v].op.shape);
        CHECK(x.dtype == DType::Fp32);
        CHECK(x.out_dtype == DType::Bf16);
      }
}

TEST_CASE("autocast: GEMMs and SDPA cast each fp32 input they read, not the bf16 ones",
          "[autocast]") {
  OpGraph amp = build_graph(llama_l8(), train_run(MasterWeights::Fp32));
  // q/k/v_proj and gate/up_proj read the fp32 norm output (3 + 2), SDPA the fp32 RoPE'd q and k
  // (2); o_proj and down_proj read bf16 outputs, v is bf16.
  CHECK(count(amp, SectionKind::DecoderBlock, input_cast) == 7);
  CHECK(count(amp, SectionKind::Head, input_cast) == 1);
  auto attention_input = [](const GraphNode& n) {
    return input_cast(n) && n.role.projection == Projection::None;
  };
  CHECK(count(amp, SectionKind::DecoderBlock, attention_input) == 2);
}

TEST_CASE("autocast: the residual stream and the norms are fp32, the norms without casts",
          "[autocast]") {
  auto norm_casts = [](const GraphNode& n) {
    return n.role.kind == RoleKind::Norm &&
           (n.role.norm_part == NormPart::ToFp32 || n.role.norm_part == NormPart::ToInput);
  };
  auto bf16_residual = [](const GraphNode& n) {
    auto* x = std::get_if<ElementwiseOp>(&n.op.shape);
    return n.role.kind == RoleKind::ResidualAdd && x && x->dtype == DType::Bf16;
  };
  OpGraph amp = build_graph(llama_l8(), train_run(MasterWeights::Fp32));
  OpGraph none = build_graph(llama_l8(), train_run(MasterWeights::None));
  CHECK(count(amp, SectionKind::DecoderBlock, norm_casts) == 0);
  CHECK(count(none, SectionKind::DecoderBlock, norm_casts) == 4);
  CHECK(count(amp, SectionKind::DecoderBlock, bf16_residual) == 0);
  CHECK(count(none, SectionKind::DecoderBlock, bf16_residual) == 2);
}

TEST_CASE("autocast: every forward cast's gradient is cast back in backward", "[autocast]") {
  OpGraph amp = build_graph(llama_l8(), train_run(MasterWeights::Fp32));
  auto cast_grad = [](const GraphNode& n) {
    return n.role.kind == RoleKind::Autocast && n.role.pass == Pass::Backward;
  };
  auto to_input = [](const GraphNode& n) { return n.role.grad == GradKind::ToInputDtype; };
  CHECK(count(amp, SectionKind::BlockBackward, cast_grad) == 14);
  CHECK(count(amp, SectionKind::HeadBackward, cast_grad) == 2);
  // q and k: mul_cos and mul_sin promoted to fp32 (4), the two residual adds (2).
  CHECK(count(amp, SectionKind::BlockBackward, to_input) == 6);
  OpGraph none = build_graph(llama_l8(), train_run(MasterWeights::None));
  CHECK(count(none, SectionKind::BlockBackward, to_input) == 0);
}

TEST_CASE("autocast adds the kernels the H200 profile adds over bf16 parameters", "[autocast]") {
  auto ckpt = GENERATE(as<std::string>{}, "nockpt", "ckpt");
  const auto& amp = record("hf-llama3-8b-L8-train-b1-s2048-fp32amp-" + ckpt + "-eager");
  const auto& bf16 = record("hf-llama3-8b-L8-train-b1-s2048-bf16-" + ckpt + "-eager");
  RunConfig a = train_run(MasterWeights::Fp32), b = train_run(MasterWeights::None);
  a.recompute = b.recompute = ckpt == "ckpt" ? Recompute::Full : Recompute::None;
  int64_t built = kernels(build_graph(llama_l8(), a)) - kernels(build_graph(llama_l8(), b));
  int64_t profiled = test::profiled_kernels(amp) - test::profiled_kernels(bf16);
  INFO(ckpt << ": built +" << built << ", profiled +" << profiled);
  CHECK(std::abs(built - profiled) <= profiled / 20);  // within 5% of the profile's extra kernels
}

TEST_CASE("memory: fp32 master parameters hold fp32 weights, gradients and AdamW moments",
          "[autocast][memory]") {
  ModelConfig m = llama_l8();
  double params = (double)weight_parameter_count(m, 0);
  for (auto w : {MasterWeights::None, MasterWeights::Fp32}) {
    RunConfig run = train_run(w);
    run.optimizer = Optimizer::AdamW;
    MemoryFootprint f = memory_footprint(build_graph(m, run), m, run, test::h100());
    double bytes = w == MasterWeights::Fp32 ? 4 : 2;
    CHECK(f.weights_bytes == Approx(params * bytes));
    CHECK(f.gradient_bytes == Approx(params * bytes));
    CHECK(f.optimizer_bytes == Approx(2 * params * bytes));
  }
}

TEST_CASE("grad scaler: unscale and inf check over every gradient, only when asked", "[autocast]") {
  ModelConfig m = llama_l8();
  RunConfig run = train_run(MasterWeights::Fp32);
  run.weights = run.activations = DType::Fp16;
  run.optimizer = Optimizer::AdamW;
  auto scaler = [](const GraphNode& n) { return n.role.kind == RoleKind::GradScaler; };
  CHECK(count(build_graph(m, run), SectionKind::Optimizer, scaler) == 0);
  run.grad_scaler = true;
  OpGraph g = build_graph(m, run);
  CHECK(count(g, SectionKind::Optimizer, scaler) == 2);
  CHECK(count(g, SectionKind::Loss, scaler) == 1);
  const GraphSection& opt = g.sections.back();
  const auto& unscale = std::get<ElementwiseOp>(opt.dag()[launch_order(opt).front()].op.shape);
  CHECK(unscale.numel == weight_parameter_count(m, 0));
  CHECK(unscale.dtype == DType::Fp32);
}

TEST_CASE("autocast errors: one message per impossible combination", "[autocast][errors]") {
  ModelConfig m = llama_l8();
  auto fails = [&](RunConfig run, std::initializer_list<std::string> parts) {
    require_input_error([&] { check_run_config(run, m); }, parts);
  };
  RunConfig ok = train_run(MasterWeights::Fp32);
  CHECK_NOTHROW(check_run_config(ok, m));
  RunConfig r = ok;
  r.phase = Phase::Prefill;
  fails(r, {"--master-weights: master weights belong to training"});
  r = ok;
  r.weights = r.activations = DType::Fp32;
  fails(
      r,
      {"--master-weights: autocast casts the fp32 parameters to --weights bf16 or fp16, got fp32"});
  r = ok;
  r.activations = DType::Fp16;
  fails(r, {"--master-weights: autocast computes in one dtype"});
  RunConfig fp16 = ok;
  fp16.weights = fp16.activations = DType::Fp16;
  fp16.optimizer = Optimizer::AdamW;
  fp16.grad_scaler = true;
  CHECK_NOTHROW(check_run_config(fp16, m));
  r = fp16;
  r.phase = Phase::Prefill;
  r.optimizer = Optimizer::None;
  r.master_weights = MasterWeights::None;
  fails(r, {"--grad-scaler: loss scaling belongs to training"});
  r = fp16;
  r.weights = r.activations = DType::Bf16;
  fails(r, {"--grad-scaler: loss scaling is for fp16 (--weights fp16); bf16"});
  r = fp16;
  r.master_weights = MasterWeights::None;
  fails(r, {"--grad-scaler: GradScaler refuses fp16 gradients", "add --master-weights fp32"});
  r = fp16;
  r.optimizer = Optimizer::None;
  fails(r, {"--grad-scaler: GradScaler unscales in scaler.step(optimizer)"});
}

TEST_CASE("hf records: an fp32amp training record runs with fp32 master weights", "[autocast]") {
  auto doc = nlohmann::json::parse(R"({"meta": {"device_name": "NVIDIA H200"}, "records": [
    {"id": "t", "split": "holdout", "model": "hf-llama3-8b", "layers": 8, "phase": "train",
     "batch": 1, "seq": 2048, "precision": "fp32amp", "ckpt": "nockpt", "launch": "eager",
     "device_median_ms": 71.0}]})");
  RuntimeProfile hf = load_runtime("hf-transformers");
  WorkloadDataset d = parse_workload_dataset(doc, "h.json", hf);
  REQUIRE(d.records.size() == 1);
  CHECK(d.records[0].run.master_weights == MasterWeights::Fp32);
  CHECK(d.records[0].category == "train-fp32amp-eager");
  doc["records"][0]["precision"] = "bf16";
  WorkloadDataset b = parse_workload_dataset(doc, "h.json", hf);
  REQUIRE(b.records.size() == 1);
  CHECK(b.records[0].run.master_weights == MasterWeights::None);
  CHECK(b.records[0].category == "train-eager");
}

TEST_CASE("roles: an autocast cast names what it casts", "[autocast][roles]") {
  CHECK(role_name(role::autocast(CastOf::Weight, Projection::Q)) == "autocast.q.weight");
  CHECK(role_name(role::autocast(CastOf::Input, Projection::None, Tensor::K)) ==
        "autocast.k.input");
}
