// ZeRO-3 over part of the data-parallel group (HSDP, --fsdp-shard; workloads/parallel_config.h)
// and Nemotron's squared-ReLU MLP (MlpKind::Relu2, the "nemotron" importer):
//  - checks: one test per error message, and the strategy one step away accepted;
//  - the shard group's gathers and reduce-scatters and the replicas' all-reduce of each layer's
//    gradient shard, against the collective model's closed forms; a shard group of all dp ranks
//    is plain ZeRO-3, to the bit;
//  - memory per GPU: state sharded over the shard group (hand-computed against ZeRO-3);
//  - the relu2 MLP: two GEMMs and one relu2 kernel (its backward too), 2 h I parameters;
//  - the published training runs' FSDP column and Nemotron rows as training_runs.h maps them.
#include "hardware/derived.h"
#include "model/parallel_memory.h"
#include "model/parallel_predict.h"
#include "model/parallel_stage_tail.h"
#include "parallel_fixture.h"
#include "test_helpers.h"
#include "training_runs_fixture.h"
#include "validate/training_runs.h"
#include "workloads/graph_builder.h"
#include "workloads/op_math.h"
#include "workloads/op_parse.h"

#include <nlohmann/json.hpp>

using namespace ridgeline;
using ridgeline::test::dgx;
using ridgeline::test::dgx_gpu;
using ridgeline::test::require_input_error;

namespace {

const ClusterLimits node8{"dgx-h100", 8, 64};

ParallelConfig hsdp(int64_t dp, int64_t shard) {
  ParallelConfig p = test::strategy(1, 1, dp, 2 * dp);  // two micro-batches
  p.zero = 3;
  p.fsdp_shard = shard;
  return p;
}

void check(const ParallelConfig& p) {
  check_parallel_config(p, test::tiny(), test::train_run(), node8);
}

// Llama-shaped, 4 layers of h 1024: large enough that the layers' collectives are not all latency.
const ModelConfig& model4() {
  static const ModelConfig m = load_model_text(R"({"model_type": "llama", "hidden_size": 1024,
      "intermediate_size": 4096, "num_hidden_layers": 4, "num_attention_heads": 16,
      "num_key_value_heads": 8, "vocab_size": 32000, "max_position_embeddings": 4096,
      "hidden_act": "silu", "tie_word_embeddings": false})",
                                               "model4");
  return m;
}

ParallelPrediction predict(const ParallelConfig& p) {
  ClusterSpec c = dgx();
  c.max_nodes.value = std::max(c.max_nodes.value, 4.0);
  return predict_parallel(model4(), test::train_run(512), p, c, dgx_gpu());
}

nlohmann::json nemotron_config() {
  return {{"model_type", "nemotron"}, {"hidden_size", 1024},
          {"num_hidden_layers", 2},   {"num_attention_heads", 8},
          {"num_key_value_heads", 2}, {"intermediate_size", 4096},
          {"vocab_size", 32000},      {"max_position_embeddings", 4096},
          {"hidden_act", "relu2"},    {"partial_rotary_factor", 0.5},
          {"norm_eps", 1e-5},         {"rope_theta", 10000.0}};
}

int count_named(const OpGraph& g, const std::string& name) {
  int n = 0;
  for (const auto& s : g.sections)
    for (auto v : boost::make_iterator_range(boost::vertices(s.dag())))
      if (s.dag()[v].name == name) ++n;
  return n;
}

const TrainingRunCase* find_case(const std::string& id) {
  return test::find_training_case(id);
}
std::string skip_reason(const std::string& id) {
  return test::training_skip_reason(id);
}
bool noted(const TrainingRunCase& c, const std::string& note) {
  return std::find(c.assumptions.begin(), c.assumptions.end(), note) != c.assumptions.end();
}

}  // namespace

TEST_CASE("fsdp: a shard group dividing dp under ZeRO-3 passes, all of dp too", "[fsdp][errors]") {
  check(hsdp(4, 2));
  check(hsdp(4, 4));
  check(hsdp(4, 1));  // one rank a shard group: replicas of everything (DDP-like), allowed
  check(hsdp(4, 0));  // 0: all dp ranks
  CHECK(hsdp(8, 2).shard_dp() == 2);
  CHECK(hsdp(8, 2).replicas() == 4);
  CHECK(hsdp(8, 0).shard_dp() == 8);
  CHECK(hsdp(8, 0).replicas() == 1);
}

TEST_CASE("fsdp: a negative shard group is an error", "[fsdp][errors]") {
  require_input_error([] { check(hsdp(4, -2)); },
                      {"--fsdp-shard: a shard group of at least 1 data-parallel rank, got -2"});
}

TEST_CASE("fsdp: a shard group needs --zero 3", "[fsdp][errors]") {
  ParallelConfig p = hsdp(4, 2);
  p.zero = 2;
  require_input_error([&] { check(p); },
                      {"--fsdp-shard: shards the parameters over part of the data-parallel "
                       "group: needs --zero 3, got --zero 2"});
}

TEST_CASE("fsdp: a shard group not dividing dp is an error", "[fsdp][errors]") {
  require_input_error([] { check(hsdp(4, 3)); },
                      {"--fsdp-shard: 3 does not divide --dp 4 into replicas of the shard group"});
  require_input_error([] { check(hsdp(4, 8)); }, {"--fsdp-shard: 8 does not divide --dp 4"});
}

TEST_CASE("fsdp: a shard group below dp with expert parallelism is not modelled",
          "[fsdp][errors]") {
  ModelConfig moe = load_model("mixtral-8x7b");
  ParallelConfig p = hsdp(4, 2);
  p.ep = 2;
  RunConfig r = test::train_run();
  require_input_error([&] { check_parallel_config(p, moe, r, node8); },
                      {"--fsdp-shard: a shard group (2) smaller than --dp 4 with --ep 2"});
  p.fsdp_shard = 4;  // all of dp: plain ZeRO-3 with experts
  check_parallel_config(p, moe, r, node8);
}

TEST_CASE("fsdp: a shard group of all dp ranks is plain ZeRO-3", "[fsdp][predict]") {
  ParallelPrediction plain = predict(hsdp(8, 0)), all = predict(hsdp(8, 8));
  CHECK(all.total_us == plain.total_us);
  CHECK(all.comm_us == plain.comm_us);
  CHECK(all.memory.total() == plain.memory.total());
}

TEST_CASE(
    "fsdp: HSDP gathers and reduce-scatters over the shard group, all-reduces the shard "
    "over the replicas",
    "[fsdp][predict]") {
  using namespace parallel_detail;
  ClusterSpec c = dgx();
  c.max_nodes.value = std::max(c.max_nodes.value, 4.0);
  // 16 GPUs, two nodes: shard groups of 8 (one node), 2 replicas (one rank a node).
  ParallelConfig p = hsdp(16, 8);
  ParallelPrediction x = predict(p);
  RunConfig r = test::train_run(512);
  StageParams sp = stage_parameters(model4(), r, p, 0);
  double bytes = sp.layer_dense * 2;  // bf16
  Comm gather = comm(CollectiveKind::AllGather, bytes, 8, 8, c, dgx_gpu());
  Comm scatter = comm(CollectiveKind::ReduceScatter, bytes, 8, 8, c, dgx_gpu());
  Comm replicate = comm(CollectiveKind::AllReduce, bytes / 8, 2, 1, c, dgx_gpu());
  REQUIRE(replicate.time_us > 0);
  // Per micro-batch (2) and layer (4): the gather before forward and before backward, then the
  // gradients' reduce-scatter and the replicas' all-reduce.
  double want = 2 * 4 * (2 * gather.time_us + scatter.time_us + replicate.time_us);
  CHECK(x.comm_us[(int)CommGroup::Dp] == Approx(want).epsilon(1e-12));
  CHECK(x.description.find("ZeRO 3 sharded over 8 dp ranks x 2 replicas (HSDP)") !=
        std::string::npos);
}

TEST_CASE("fsdp: HSDP holds the state of its shard group, each replica all of it",
          "[fsdp][memory]") {
  RunConfig r = test::train_run();
  r.optimizer = Optimizer::AdamW;
  auto mem = [&](const ParallelConfig& p) {
    return parallel_memory(test::tiny(), r, p, 1e15, 0, node8);
  };
  ParallelMemory full = mem(hsdp(8, 0)), half = mem(hsdp(8, 4)), quarter = mem(hsdp(8, 2));
  // Sharded over 8, 4 and 2 ranks: twice, four times the state of plain ZeRO-3.
  CHECK(half.weights_bytes == Approx(2 * full.weights_bytes).epsilon(1e-15));
  CHECK(half.gradient_bytes == Approx(2 * full.gradient_bytes).epsilon(1e-15));
  CHECK(half.optimizer_bytes == Approx(2 * full.optimizer_bytes).epsilon(1e-15));
  CHECK(quarter.optimizer_bytes == Approx(4 * full.optimizer_bytes).epsilon(1e-15));
  // Buffers: a second data-parallel communicator (shard and replica groups).
  CHECK(half.comm_buffer_bytes == full.comm_buffer_bytes + kNcclBufferBytes);
  CHECK(mem(hsdp(8, 8)).comm_buffer_bytes == full.comm_buffer_bytes);
}

TEST_CASE("fsdp: a strategy that does not fit names a larger shard group", "[fsdp][memory]") {
  RunConfig r = test::train_run();
  r.optimizer = Optimizer::AdamW;
  ParallelConfig p = hsdp(8, 2);
  ParallelMemory two = parallel_memory(test::tiny(), r, p, 1e15, 0, node8);
  ParallelMemory four = parallel_memory(test::tiny(), r, hsdp(8, 4), 1e15, 0, node8);
  double capacity = (two.total() + four.total()) / 2;  // four fits, two does not
  ParallelMemory f = parallel_memory(test::tiny(), r, p, capacity, 0, node8);
  REQUIRE_FALSE(f.fits());
  CHECK(f.reason.find("try --fsdp-shard 4") != std::string::npos);
}

TEST_CASE("relu2: Nemotron's MLP is up_proj, relu2, down_proj without a gate", "[relu2]") {
  ModelConfig m = load_model_text(nemotron_config().dump(), "nemotron.json");
  CHECK(m.family == "nemotron");
  CHECK(m.mlp == MlpKind::Relu2);
  CHECK_FALSE(gated_mlp(m.mlp));
  CHECK(m.norm == NormKind::LayerNorm);
  CHECK(m.kv_heads == 2);
  CHECK(m.head_dim == 128);
  // A block: q 1024x1024, k and v 1024x256 each, o 1024x1024, up and down 1024x4096 each, two
  // LayerNorms (weight and bias, 2 x 2 x 1024): 2621440 + 8388608 + 4096.
  CHECK(block_parameter_count(m) == 2621440 + 8388608 + 4096);
  RunConfig train = test::train_run();
  OpGraph g = build_graph(m, train);
  CHECK(count_named(g, "up_proj") == 1);
  CHECK(count_named(g, "down_proj") == 1);
  CHECK(count_named(g, "relu2") == 1);
  CHECK(count_named(g, "gate_proj") == 0);
  CHECK(count_named(g, "relu2.backward") == 1);
}

TEST_CASE("relu2: the kernel reads one tensor and writes one, as an op line too", "[relu2]") {
  Op op = parse_op(nlohmann::json::parse(
                       R"({"op":"elementwise","kind":"relu2","numel":1048576,"dtype":"bf16"})"),
                   "t", "x");
  const auto& e = std::get<ElementwiseOp>(op.shape);
  CHECK(e.kind == ElementwiseKind::Relu2);
  CHECK(elementwise_info(ElementwiseKind::Relu2).inputs == 1);
  CHECK(elementwise_kind_name(ElementwiseKind::Relu2) == std::string("relu2"));
}

TEST_CASE("relu2: a nemotron config with another activation is an error", "[relu2][errors]") {
  nlohmann::json j = nemotron_config();
  j["hidden_act"] = "silu";
  require_input_error([&] { load_model_text(j.dump(), "n.json"); },
                      {"n.json", "/hidden_act",
                       "expected \"relu2\" (a nemotron MLP is squared ReLU: down(relu(up)^2), "
                       "no gate); got \"silu\""});
}

TEST_CASE("relu2: a nemotron partial_rotary_factor outside 0 < f <= 1 is an error",
          "[relu2][errors]") {
  nlohmann::json j = nemotron_config();
  j["partial_rotary_factor"] = 1.5;
  require_input_error([&] { load_model_text(j.dump(), "n.json"); },
                      {"n.json", "/partial_rotary_factor"});
}

TEST_CASE("training runs: the FSDP column as the tables print it", "[fsdp][validate][training]") {
  // MaxText, FSDP 128 of dp 512: HSDP, 4 replicas.
  const TrainingRunCase* maxtext = find_case("dgxc_benchmarking#0468");
  REQUIRE(maxtext);
  CHECK((maxtext->parallel.zero == 3 && maxtext->parallel.fsdp_shard == 128));
  CHECK(maxtext->parallel.replicas() == 4);
  // MaxText's mesh, dcn_FSDP=16 x ici_FSDP=8, dcn_DP=4 over dp 512.
  const TrainingRunCase* mesh = find_case("dgxc_benchmarking#0593");
  REQUIRE(mesh);
  CHECK(mesh->parallel.fsdp_shard == 128);
  // dcn_FSDP=16 x ici_FSDP=8, dcn_DP=1 over dp 128: all of dp, plain ZeRO-3.
  const TrainingRunCase* all = find_case("dgxc_benchmarking#0591");
  REQUIRE(all);
  CHECK((all->parallel.zero == 3 && all->parallel.fsdp_shard == 0));
  // NeMo 25.04: FSDP 0 is off (the distributed optimizer), 1 the on/off flag over all dp.
  const TrainingRunCase* off = find_case("nemo_fw_25x_docs#0126");
  REQUIRE(off);
  CHECK(off->parallel.zero == 1);
  CHECK(noted(*off, "fsdp 0: off"));
  const TrainingRunCase* on = find_case("nemo_fw_25x_docs#0127");
  REQUIRE(on);
  CHECK((on->parallel.zero == 3 && on->parallel.fsdp_shard == 0));
  CHECK(noted(*on, "fsdp 1: NeMo's FSDP flag, sharded over all dp ranks"));
  // PaxML prints FSDP+DP without the split.
  CHECK(skip_reason("dgxc_benchmarking#0530") ==
        "FSDP shard group not printed (\"FSDP+DP (split not printed)\")");
}

TEST_CASE("training runs: Nemotron rows are squared-ReLU models", "[relu2][validate][training]") {
  const TrainingRunCase* c = find_case("nemo_2407_perf#0080");
  REQUIRE(c);
  CHECK(c->family == "nemotron");
  CHECK(c->model.mlp == MlpKind::Relu2);
  CHECK(c->model.norm == NormKind::LayerNorm);
  CHECK(skip_reason("nemo_2407_perf#0080") == "");
}
