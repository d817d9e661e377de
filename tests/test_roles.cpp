// Kernel roles: every kernel every builder emits has a typed role that fits its op, and the
// display names decide nothing: a graph whose kernels and sections are all renamed (before the
// backward pass is derived from it, and after) predicts the same times and memory, bit for bit.
#include "model/prediction.h"
#include "test_helpers.h"
#include "workloads/graph_builder.h"
#include "workloads/train_builder.h"

#include <string>
#include <vector>

using namespace ridgeline;

namespace {

std::string tiny_path() {
  return std::string(RIDGELINE_SOURCE_DIR) + "/examples/models/tiny-llama.json";
}

RunConfig run_of(Phase p, const std::string& runtime, int64_t batch, int64_t seq, int64_t kv) {
  RunConfig r;
  r.phase = p;
  r.batch = batch;
  r.seq = seq;
  r.kv_len = kv;
  r.runtime = load_runtime(runtime);
  return r;
}

// The runs every builder path goes through: prefill, prefill over a cache, decode (with an fp8
// cache), training with the optimizer and recomputation, and blocks alone.
std::vector<RunConfig> runs_of(const std::string& runtime) {
  std::vector<RunConfig> out = {
      run_of(Phase::Prefill, runtime, 2, 64, 0), run_of(Phase::Prefill, runtime, 1, 32, 64),
      run_of(Phase::Decode, runtime, 4, 0, 128), run_of(Phase::Train, runtime, 1, 64, 0)};
  out[2].kv_cache = DType::Fp8;
  out[3].optimizer = Optimizer::AdamW;
  out[3].recompute = Recompute::Full;
  RunConfig blocks = out[3];
  blocks.blocks = 1;
  blocks.optimizer = Optimizer::None;
  out.push_back(blocks);
  return out;
}

std::vector<ModelConfig> models() {
  std::vector<ModelConfig> out = {load_model(tiny_path())};
  for (const auto& name : model_preset_names()) out.push_back(load_model(name));
  return out;
}

void check_role_fits(const GraphNode& n) {
  INFO("kernel " << n.name << ": role " << role_name(n.role));
  REQUIRE(n.role.kind != RoleKind::Unset);
  CHECK((n.role.pass == Pass::Backward) == (n.role.grad != GradKind::None));
  // A GEMM multiplies by a weight, except eager attention's batched Q·Kᵀ and P·V (transformers'
  // eager_attention_forward, family_ops.cpp), which multiply activations.
  if (std::holds_alternative<GemmOp>(n.op.shape) && n.role.kind != RoleKind::AttentionScores) {
    CHECK(n.role.kind == RoleKind::WeightGemm);
    CHECK(n.role.projection != Projection::None);
  }
  if (std::holds_alternative<AttentionOp>(n.op.shape)) CHECK(n.role.kind == RoleKind::Attention);
  if (n.role.kind == RoleKind::Norm) CHECK(std::holds_alternative<RowOp>(n.op.shape));
  if (n.role.kind == RoleKind::Rope) CHECK(n.role.rope != RopePart::None);
}

// Every kernel and section renamed: "kernel 17", "section 3".
void rename_all(OpGraph& g) {
  int kernel = 0, section = 0;
  for (auto& s : g.sections) {
    s.name = "section " + std::to_string(section++);
    for (OpVertex v : launch_order(s)) {
      GraphNode& n = s.dag()[v];
      n.name = n.op.id = "kernel " + std::to_string(kernel++);
    }
  }
}

bool forward_kind(SectionKind k) {
  return k == SectionKind::Embedding || k == SectionKind::DecoderBlock || k == SectionKind::Head;
}

// The graph of `run` built from renamed forward sections, then renamed again.
OpGraph renamed_graph(const ModelConfig& m, const RunConfig& run) {
  OpGraph g = build_graph(m, run);
  if (run.phase != Phase::Train) {
    rename_all(g);
    return g;
  }
  OpGraph forward;
  forward.description = g.description;
  for (const auto& s : g.sections) {
    if (forward_kind(s.kind)) forward.sections.push_back(s);
  }
  rename_all(forward);
  add_training_sections(forward, m, run);
  rename_all(forward);
  return forward;
}

void check_same_numbers(const Prediction& a, const Prediction& b) {
  CHECK(a.total_us == b.total_us);
  CHECK(a.flops == b.flops);
  CHECK(a.hbm_bytes == b.hbm_bytes);
  CHECK(a.kernels == b.kernels);
  CHECK(a.time_by_class_us == b.time_by_class_us);
  CHECK(a.memory.total() == b.memory.total());
  CHECK(a.memory.activation_bytes == b.memory.activation_bytes);
  CHECK(a.memory.max_batch == b.memory.max_batch);
  REQUIRE(a.sections.size() == b.sections.size());
  for (size_t i = 0; i < a.sections.size(); ++i) {
    const auto &x = a.sections[i].kernels, &y = b.sections[i].kernels;
    REQUIRE(x.size() == y.size());
    for (size_t j = 0; j < x.size(); ++j) {
      CHECK(x[j].device_us == y[j].device_us);
      CHECK(x[j].cost.bottleneck == y[j].cost.bottleneck);
    }
  }
}

}  // namespace

TEST_CASE("roles: every kernel every builder emits has a role that fits its op", "[roles]") {
  size_t nodes = 0;
  for (const auto& m : models()) {
    for (const std::string rt : {"pytorch-eager", "fused"}) {
      for (const auto& run : runs_of(rt)) {
        INFO(m.name << " " << phase_name(run.phase) << " " << rt);
        OpGraph g = build_graph(m, run);
        for (const auto& s : g.sections) {
          for (OpVertex v : launch_order(s)) {
            check_role_fits(s.dag()[v]);
            ++nodes;
          }
        }
      }
    }
  }
  CHECK(nodes > 4000);
}

TEST_CASE("roles: a node without a role is caught", "[roles]") {
  GraphNode n;
  n.name = "mystery";
  n.op = test::gemm(64, 64, 64);
  CHECK(n.role.kind == RoleKind::Unset);  // what check_role_fits rejects
  CHECK(role_name(n.role) == "unset");
}

TEST_CASE("roles: renaming every kernel and section moves no number", "[roles]") {
  const GpuSpec& gpu = test::h100();
  std::vector<ModelConfig> ms = {load_model(tiny_path()), load_model("mixtral-8x7b"),
                                 load_model("gpt2-xl")};
  for (const auto& m : ms) {
    for (const std::string rt : {"pytorch-eager", "fused"}) {
      for (RunConfig run : runs_of(rt)) {
        if (m.layers > 8) run.blocks = 2;  // the rules of a block, not a big model's memory
        if (run.blocks > 0) run.optimizer = Optimizer::None;
        INFO(m.name << " " << phase_name(run.phase) << " " << rt);
        OpGraph plain = build_graph(m, run);
        OpGraph renamed = renamed_graph(m, run);
        check_same_numbers(predict_workload(plain, m, run, gpu),
                           predict_workload(renamed, m, run, gpu));
      }
    }
  }
}

TEST_CASE("roles: backward kernels carry their forward kernel's role", "[roles]") {
  RunConfig run = run_of(Phase::Train, "pytorch-eager", 1, 64, 0);
  OpGraph g = build_graph(load_model(tiny_path()), run);
  int dgrad_q = 0, branch_sums = 0, cat_fills = 0;
  for (const auto& s : g.sections) {
    for (OpVertex v : launch_order(s)) {
      const KernelRole& r = s.dag()[v].role;
      dgrad_q += r.grad == GradKind::Dgrad && r.projection == Projection::Q;
      branch_sums += r.grad == GradKind::BranchSum;
      cat_fills += r.grad == GradKind::CatFill;
    }
  }
  CHECK(dgrad_q == 1);      // one block section, repeated
  CHECK(branch_sums == 2);  // the residual adds after attention and after the MLP
  CHECK(cat_fills == 2);    // q's and k's rotate_half
  CHECK(role_name(role::backward(role::gemm(Projection::Q), GradKind::Dgrad)) ==
        "backward.dgrad(weight_gemm.q)");
}
