// The published training runs (validate/training_runs.h): the held-out split rule (FNV-1a 64 of
// the id, held out when the hash is a multiple of 3) against hashes computed by hand, rows mapped
// field by field as the header says, and the skip reasons.
#include "test_helpers.h"
#include "training_runs_fixture.h"
#include "validate/training_runs.h"
#include "validate/training_scorecard.h"

#include <algorithm>

using namespace ridgeline;

namespace {

const TrainingRunSet& runs() {
  return test::training_runs();
}
const TrainingRunCase* find_case(const std::string& id) {
  return test::find_training_case(id);
}
std::string skip_reason(const std::string& id) {
  return test::training_skip_reason(id);
}

// A training-runs document of `rows` (a JSON array's text) over Llama 3 8B's shape.
nlohmann::json llama3_8b_doc(const std::string& rows) {
  return nlohmann::json::parse(R"({"models": {"llama3_8b": {"arch": "llama", "layers": 32,
      "hidden": 4096, "heads": 32, "kv_heads": 8, "ffn": 14336, "vocab": 128256,
      "head_dim": 128}}, "rows": )" +
                               rows + "}");
}

}  // namespace

TEST_CASE("training runs: FNV-1a 64 matches the published test vectors", "[validate][training]") {
  CHECK(fnv1a64("") == 0xcbf29ce484222325ull);
  CHECK(fnv1a64("a") == 0xaf63dc4c8601ec8cull);
  CHECK(fnv1a64("foobar") == 0x85944171f73967e8ull);
}

TEST_CASE("training runs: held out when the id's hash is a multiple of 3", "[validate][training]") {
  // Hashes mod 3 computed by hand (Python) for these ids: 0, 0, 1, 2.
  CHECK(training_run_split("dgxc_benchmarking#0431") == "holdout");
  CHECK(training_run_split("dgxc_benchmarking#0432") == "holdout");
  CHECK(training_run_split("dgxc_benchmarking#0430") == "fit");
  CHECK(training_run_split("dgxc_benchmarking#0512") == "fit");
}

TEST_CASE("training runs: every row is a case or a skip", "[validate][training]") {
  CHECK(runs().rows == 623);
  CHECK((int64_t)(runs().cases.size() + runs().skipped.size()) == runs().rows);
  for (const auto& c : runs().cases) CHECK(c.split == training_run_split(c.id));
}

TEST_CASE("training runs: GPT-3 175B row mapped as printed, interleaved, SP, ZeRO-1",
          "[validate][training]") {
  const TrainingRunCase* c = find_case("dgxc_benchmarking#0430");
  REQUIRE(c);
  CHECK(c->gpu == "h100-sxm");
  CHECK(c->cluster == "dgx-h100");
  CHECK(c->family == "gpt3");
  CHECK(c->model.layers == 96);
  CHECK(c->model.hidden == 12288);
  CHECK(c->model.mlp == MlpKind::Gelu);
  CHECK(c->model.norm == NormKind::LayerNorm);
  CHECK(c->model.position == PositionKind::Learned);
  CHECK(c->model.vocab == 51200);
  const ParallelConfig& p = c->parallel;
  CHECK(p.gpus == 128);
  CHECK((p.tp == 4 && p.pp == 8 && p.vp == 12 && p.dp == 4 && p.cp == 1));
  CHECK(p.schedule == PipelineSchedule::Interleaved);
  CHECK(p.sp);
  CHECK(p.zero == 1);  // the distributed optimizer, not printed
  CHECK(p.microbatch == 1);
  CHECK(p.global_batch == 256);
  CHECK(p.recompute == Recompute::None);
  CHECK(c->run.seq == 2048);
  CHECK(c->run.batch == 1);
  CHECK(c->measured_from == "iter_time_s");
  CHECK(c->measured_us == Approx(8.91e6));
  CHECK(std::find(c->assumptions.begin(), c->assumptions.end(),
                  "zero not printed: distributed optimizer (ZeRO-1)") != c->assumptions.end());
}

TEST_CASE("training runs: Grok-1 proxy row is Mixtral-like with its layer override",
          "[validate][training]") {
  const TrainingRunCase* c = find_case("dgxc_benchmarking#0512");
  REQUIRE(c);
  CHECK(c->family == "grok1");
  CHECK(c->model.layers == 2);
  CHECK(c->model.moe.experts == 8);
  CHECK(c->model.moe.top_k == 2);
  CHECK(c->model.mlp == MlpKind::GatedSilu);
  CHECK((c->parallel.tp == 4 && c->parallel.dp == 2 && c->parallel.ep == 2));
  CHECK(c->parallel.sp);  // not printed, tp > 1
  CHECK(c->measured_us == Approx(24.03e6));
}

TEST_CASE("training runs: Qwen3-MoE rows import as qwen3_moe", "[validate][training]") {
  const TrainingRunCase* c = find_case("megatron_bridge_perf#0186");
  REQUIRE(c);
  CHECK(c->family == "qwen3_moe");
  CHECK(c->model.moe.experts == 128);
  CHECK(c->model.moe.top_k == 8);
  CHECK(c->model.moe.expert_intermediate == 768);
  CHECK(c->model.qk_norm == QkNorm::PerHead);
  CHECK(c->parallel.ep == 16);
}

TEST_CASE("training runs: gpt-oss and Llama 4 rows are the presets, checked against the table",
          "[validate][training]") {
  const TrainingRunCase* oss = find_case("megatron_bridge_perf#0319");  // GB200, ep 64
  REQUIRE(oss);
  CHECK(oss->family == "gpt_oss");
  CHECK(oss->model.attention_sinks);
  CHECK(oss->model.moe.experts == 128);
  // Megatron's attention: the sinks inside TE's fused kernel, not transformers' eager path
  CHECK(oss->run.runtime.block.rope == RopeImpl::Fused);
  const TrainingRunCase* pipelined = find_case("megatron_bridge_perf#0232");  // H100, pp 4
  REQUIRE(pipelined);
  CHECK(pipelined->parallel.pp == 4);
  const TrainingRunCase* maverick = find_case("dgxc_benchmarking#0656");  // pp 2 x vp 12
  REQUIRE(maverick);
  CHECK(maverick->family == "llama4");
  CHECK(layer_groups(maverick->model, maverick->model.layers).size() > 1);
  CHECK(maverick->parallel.vp == 12);
  // DGX Cloud's H100 Maverick rows print vp 12 beside pp 1: no pipeline, so vp 1
  const TrainingRunCase* h100 = find_case("dgxc_benchmarking#0659");
  REQUIRE(h100);
  CHECK(h100->parallel.vp == 1);
  CHECK(h100->parallel.schedule == PipelineSchedule::OneFOneB);
}

TEST_CASE("training runs error: a table figure the preset disagrees with",
          "[validate][training][errors]") {
  nlohmann::json doc = nlohmann::json::parse(R"({
    "models": {"gpt_oss_120b": {"arch": "moe, alternating 128-token sliding window / full",
                                "layers": 36, "hidden": 2880, "heads": 64, "kv_heads": 8,
                                "ffn": 2880, "vocab": 201088, "experts": 64, "topk": 4,
                                "head_dim": 64}},
    "rows": [{"id": "x#1", "source_id": "x", "model": "gpt_oss_120b", "seq_len": 4096,
              "gpu": "B200", "num_gpus": 8, "tp": 1, "pp": 1, "dp": 8, "cp": 1, "ep": 8,
              "micro_batch": 1, "global_batch": 64, "precision": "bf16",
              "completeness": "complete", "measured": {"iter_time_s": 1}}]})");
  test::require_input_error(
      [&] { parse_training_runs(doc, "t.json"); },
      {"t.json",
       "/models/gpt_oss_120b/experts: 64, but the gpt-oss-120b preset it is read as "
       "has 128"});
}

TEST_CASE("training runs: Llama 3.1 405B's layers split counting the embedding and the loss",
          "[validate][training]") {
  const TrainingRunCase* c = find_case("nemo_fw_25x_docs#0120");  // 126 layers, pp 8 x vp 8
  REQUIRE(c);
  CHECK(c->parallel.split_counts_embedding);
  CHECK(c->parallel.split_counts_loss);
  CHECK(c->parallel.chunk_layers(c->model.layers) == 2);
  const TrainingRunCase* even = find_case("nemo_2407_perf#0073");  // GPT-3: 96 over 8 x 6
  REQUIRE(even);
  CHECK_FALSE(even->parallel.split_counts_embedding);
}

TEST_CASE("training runs: rows ridgeline cannot model are skipped with their reason",
          "[validate][training]") {
  CHECK(skip_reason("megatron_bridge_perf#0174") == "fp4 training (NVFP4) not modelled");
  CHECK(skip_reason("megatron_bridge_perf#0137").rfind("architecture \"moe+MLA\"", 0) == 0);
  CHECK(skip_reason("dgxc_benchmarking#0530").rfind("FSDP shard group not printed", 0) == 0);
  CHECK(skip_reason("dgxc_benchmarking#0430") == "");
  // A GPU with no GPU file (every GPU of the published file has one since B300 and GB300 came)
  nlohmann::json doc =
      llama3_8b_doc(R"([{"id": "x#1", "source_id": "x", "model": "llama3_8b", "seq_len": 8192,
              "gpu": "RTX PRO 6000 Blackwell", "num_gpus": 8, "tp": 1, "pp": 1, "dp": 8, "cp": 1,
              "global_batch": 128, "precision": "bf16", "completeness": "complete",
              "measured": {"iter_time_s": 1}}])");
  TrainingRunSet s = parse_training_runs(doc, "t.json");
  REQUIRE(s.skipped.size() == 1);
  CHECK(s.skipped[0].reason == "GPU RTX has no GPU file");
}

TEST_CASE("training runs: Blackwell Ultra rows run on b300 and gb300 clusters",
          "[validate][training]") {
  const TrainingRunCase* hgx = find_case("megatron_bridge_perf#0325");  // "B300", Qwen3-30B-A3B
  REQUIRE(hgx);
  CHECK(hgx->gpu == "b300");
  CHECK(hgx->cluster == "dgx-b300");
  const TrainingRunCase* rack = find_case("megatron_bridge_perf#0346");  // "GB300 (NVL72)", 405B
  REQUIRE(rack);
  CHECK(rack->gpu == "gb300");
  CHECK(rack->cluster == "gb300-nvl72");
  CHECK(rack->parallel.tp == 2);
}

TEST_CASE("training runs: iteration time derived from tokens/s/GPU where only that is printed",
          "[validate][training]") {
  nlohmann::json doc =
      llama3_8b_doc(R"([{"id": "x#1", "source_id": "x", "model": "llama3_8b", "seq_len": 8192,
              "gpu": "H100-SXM5-80GB", "num_gpus": 8, "tp": 1, "pp": 1, "dp": 8, "cp": 1,
              "micro_batch": 1, "global_batch": 128, "precision": "bf16",
              "completeness": "complete", "measured": {"tokens_per_s_per_gpu": 8192}}])");
  TrainingRunSet s = parse_training_runs(doc, "t.json");
  REQUIRE(s.cases.size() == 1);
  // 128 x 8192 / (8192 x 8) s = 16 s.
  CHECK(s.cases[0].measured_us == Approx(16e6));
  CHECK(s.cases[0].measured_from == "tokens_per_s_per_gpu");
  CHECK(!s.cases[0].parallel.sp);  // tp 1
  CHECK(s.cases[0].parallel.zero == 1);
}

TEST_CASE("training runs: a row without its parallel degrees is an error naming the path",
          "[validate][training][errors]") {
  nlohmann::json doc =
      llama3_8b_doc(R"([{"id": "x#1", "source_id": "x", "model": "llama3_8b", "seq_len": 8192,
              "gpu": "H100-SXM5-80GB", "num_gpus": 8, "pp": 1, "dp": 8, "cp": 1,
              "global_batch": 128, "precision": "bf16", "completeness": "complete",
              "measured": {"iter_time_s": 1}}])");
  test::require_input_error([&] { parse_training_runs(doc, "t.json"); },
                            {"t.json: /rows/0/tp", "expected a positive integer"});
  test::require_input_error([&] { parse_training_runs(nlohmann::json::object(), "t.json"); },
                            {"t.json", "/rows"});
}

TEST_CASE("training runs: FP8 rows take the recipe they print", "[validate][training][fp8]") {
  const TrainingRunCase* hybrid = find_case("nemo_2407_perf#0071");  // "fp8 (hybrid, TE)"
  REQUIRE(hybrid);
  CHECK(hybrid->precision == "fp8");
  CHECK(hybrid->fp8.on);
  CHECK(hybrid->fp8.recipe == Fp8Recipe::Delayed);
  CHECK_FALSE(hybrid->fp8.param_gather);  // NeMo 1.x: bf16 parameter gather
  const TrainingRunCase* bf = find_case("dgxc_benchmarking#0430");
  REQUIRE(bf);
  CHECK(bf->precision == "bf16");
  CHECK_FALSE(bf->fp8.on);
  nlohmann::json doc =
      llama3_8b_doc(R"J([{"id": "x#1", "source_id": "x", "model": "llama3_8b", "seq_len": 8192,
              "gpu": "H100-SXM5-80GB", "num_gpus": 8, "tp": 1, "pp": 1, "dp": 8, "cp": 1,
              "global_batch": 128, "precision": "FP8-CS", "completeness": "complete",
              "measured": {"iter_time_s": 1}},
             {"id": "x#3", "source_id": "x", "model": "llama3_8b", "seq_len": 8192,
              "gpu": "B200", "num_gpus": 8, "tp": 1, "pp": 1, "dp": 8, "cp": 1,
              "global_batch": 128, "precision": "MXFP8", "completeness": "complete",
              "framework": "NeMo Megatron-Bridge (Megatron-Core)",
              "measured": {"iter_time_s": 1}},
             {"id": "x#2", "source_id": "x", "model": "llama3_8b", "seq_len": 8192,
              "gpu": "H100-SXM5-80GB", "num_gpus": 8, "tp": 1, "pp": 1, "dp": 8, "cp": 1,
              "global_batch": 128, "precision": "int4", "completeness": "complete",
              "measured": {"iter_time_s": 1}}])J");
  TrainingRunSet s = parse_training_runs(doc, "t.json");
  REQUIRE(s.cases.size() == 2);
  CHECK(s.cases[0].fp8.recipe == Fp8Recipe::Current);
  CHECK_FALSE(s.cases[0].fp8.param_gather);  // framework not printed: bf16 parameter gather
  CHECK(s.cases[1].fp8.recipe == Fp8Recipe::Mxfp8);
  CHECK(s.cases[1].fp8.param_gather);  // Megatron-Bridge with the distributed optimizer
  REQUIRE(s.skipped.size() == 1);
  CHECK(s.skipped[0].reason == "precision \"int4\" not mapped");
}

TEST_CASE("training runs: a DGX Cloud row's VP printed as NA takes its other releases' VP",
          "[validate][training]") {
  // The 25.02.01 Nemotron-4 340B table prints VP as NA; 24.11 and 25.04.00 print 12 for the
  // same model, GPU and layout (NeMo's recommended config for it says 12 as well).
  const TrainingRunCase* na = find_case("dgxc_benchmarking#0578");
  REQUIRE(na);
  CHECK(na->parallel.vp == 12);
  CHECK(na->parallel.schedule == PipelineSchedule::Interleaved);
  CHECK(std::find(na->assumptions.begin(), na->assumptions.end(),
                  "vp not printed: 12, as the source prints for this model, GPU and layout in "
                  "its other releases") != na->assumptions.end());
  // Elsewhere a missing VP is 1: another source (Megatron-Bridge leaves it blank where the
  // recipe does not interleave), a layout no release prints, or releases that disagree.
  auto doc = [](const std::string& source, const std::string& vp_b, const std::string& vp_c) {
    std::string rows = "[";
    for (const auto& [id, vp] :
         {std::pair<std::string, std::string>{"a", ""}, {"b", vp_b}, {"c", vp_c}}) {
      if (rows.size() > 1) rows += ",";
      rows += R"({"id": ")";
      rows += id;
      rows += R"(", "source_id": ")";
      rows += source;
      rows += R"(", "model": "llama3_8b", "seq_len": 8192, "gpu": "H100-SXM5-80GB",
          "num_gpus": 16, "tp": 1, "pp": 2, "dp": 8, "cp": 1, "ep": 1, "micro_batch": 1,
          "global_batch": 128, "precision": "bf16", "completeness": "complete",
          "measured": {"iter_time_s": 1})";
      if (!vp.empty()) rows += R"(, "vp": )" + vp;
      rows += "}";
    }
    return llama3_8b_doc(rows + "]");
  };
  TrainingRunSet dgxc = parse_training_runs(doc("dgxc_benchmarking", "4", "4"), "t.json");
  REQUIRE(dgxc.cases.size() == 3);
  CHECK(dgxc.cases[0].parallel.vp == 4);
  TrainingRunSet other = parse_training_runs(doc("megatron_bridge_perf", "4", "4"), "t.json");
  CHECK(other.cases[0].parallel.vp == 1);
  TrainingRunSet disagree = parse_training_runs(doc("dgxc_benchmarking", "4", "2"), "t.json");
  CHECK(disagree.cases[0].parallel.vp == 1);
  TrainingRunSet none = parse_training_runs(doc("dgxc_benchmarking", "", ""), "t.json");
  CHECK(none.cases[0].parallel.vp == 1);
}

TEST_CASE("training runs: an A100 row runs on dgx-a100 and is scored apart from the scope",
          "[validate][training]") {
  // One A100 row and one H100 row of the same job: each on its GPU's preset; the A100 row in
  // gpu/a100-sxm-80gb and outside scope/h100-h200-b200, the H100 row inside it.
  nlohmann::json doc =
      llama3_8b_doc(R"([{"id": "x#1", "source_id": "x", "model": "llama3_8b", "seq_len": 4096,
              "gpu": "A100-SXM4-80GB", "num_gpus": 8, "tp": 1, "pp": 1, "dp": 8, "cp": 1,
              "micro_batch": 1, "global_batch": 64, "precision": "bf16",
              "completeness": "complete", "measured": {"iter_time_s": 10}},
             {"id": "x#2", "source_id": "x", "model": "llama3_8b", "seq_len": 4096,
              "gpu": "H100-SXM5-80GB", "num_gpus": 8, "tp": 1, "pp": 1, "dp": 8, "cp": 1,
              "micro_batch": 1, "global_batch": 64, "precision": "bf16",
              "completeness": "complete", "measured": {"iter_time_s": 5}}])");
  TrainingRunSet s = parse_training_runs(doc, "t.json");
  REQUIRE(s.cases.size() == 2);
  CHECK(s.cases[0].gpu == "a100-sxm-80gb");
  CHECK(s.cases[0].cluster == "dgx-a100");
  TrainingScorecard sc = score_training_runs(s);
  auto count = [&](const std::string& name) {
    for (const auto& c : sc.categories)
      if (c.name == name) return (int64_t)(c.holdout.count + c.fit.count);
    return int64_t{0};
  };
  CHECK(count("gpu/a100-sxm-80gb") == 1);
  CHECK(count("gpu/h100-sxm") == 1);
  CHECK(count("scope/h100-h200-b200") == 1);
  CHECK(count("all") == 2);
}
