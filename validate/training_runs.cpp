// Loading the published training runs; see training_runs.h for the split rule and the mapping.
// Rows are read field by field (the file carries many informational keys, so it is not read
// strictly); a field the mapping needs that is missing or of the wrong type is an InputError
// naming the file and the JSON path, a row ridgeline cannot model is a skip with its reason.
#include "validate/training_runs.h"

#include "validate/training_run_models.h"

#include "common/errors.h"
#include "common/json_reader.h"

#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <string_view>

namespace ridgeline {

uint64_t fnv1a64(std::string_view s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

std::string training_run_split(const std::string& id) {
  return fnv1a64(id) % 3 == 0 ? "holdout" : "fit";
}

namespace {

using nlohmann::json;

using Skip = SkippedRow;

struct RowReader {
  const json& row;
  std::string where;  // "file: /rows/12"

  [[noreturn]] void fail(const std::string& key, const std::string& msg) const {
    throw InputError(where + "/" + key + ": " + msg);
  }
  bool given(const std::string& key) const { return row.contains(key) && !row[key].is_null(); }
  int64_t integer(const std::string& key) const {
    if (!given(key) || !row[key].is_number_integer() || row[key].get<int64_t>() < 1)
      fail(key, "expected a positive integer, got " +
                    (given(key) ? describe_json(row[key]) : std::string("nothing")));
    return row[key].get<int64_t>();
  }
  int64_t integer_or(const std::string& key, int64_t fallback, std::vector<std::string>& notes,
                     const std::string& note) const {
    if (!given(key)) {
      notes.push_back(note);
      return fallback;
    }
    return integer(key);
  }
  std::string string(const std::string& key) const {
    if (!given(key) || !row[key].is_string()) fail(key, "expected a string");
    return row[key].get<std::string>();
  }
};

std::string lower(std::string s) {
  for (auto& c : s) c = (char)std::tolower((unsigned char)c);
  return s;
}

struct GpuMap {
  const char* printed;
  const char* gpu;
  const char* cluster;
};
// A100 and H200 rows (none in the published set yet) run on their presets and are scored apart
// (gpu/a100-sxm-80gb outside the H100/H200/B200 scope).
constexpr GpuMap kGpus[] = {
    {"H100-SXM5-80GB", "h100-sxm", "dgx-h100"}, {"A100-SXM4-80GB", "a100-sxm-80gb", "dgx-a100"},
    {"H200", "h200-sxm", "hgx-h200"},           {"B200", "b200", "dgx-b200"},
    {"GB200", "gb200", "gb200-nvl72"},          {"B300", "b300", "dgx-b300"},
    {"GB300", "gb300", "gb300-nvl72"},
};

// MaxText's printed mesh, "dcn_FSDP=16 x ici_FSDP=8, dcn_DP=4": the FSDP ranks (16 x 8), or 0
// when the text is not of that form or its axes do not multiply to dp.
int64_t maxtext_fsdp(const std::string& text, int64_t dp) {
  long long dcn = 0, ici = 0, replicas = 0;
  if (std::sscanf(text.c_str(), "dcn_FSDP=%lld x ici_FSDP=%lld, dcn_DP=%lld", &dcn, &ici,
                  &replicas) != 3 ||
      dcn < 1 || ici < 1 || replicas < 1 || dcn * ici * replicas != dp)
    return 0;
  return dcn * ici;
}

// The row's FSDP: its ranks sharding everything, the rest of dp replicas (HSDP).
int zero3_of(int64_t fsdp, ParallelConfig& p, std::vector<std::string>& notes) {
  if (fsdp == p.dp) {
    notes.push_back("fsdp over all dp ranks = ZeRO-3");
  } else {
    p.fsdp_shard = fsdp;
    notes.push_back("fsdp over " + std::to_string(fsdp) + " of " + std::to_string(p.dp) +
                    " dp ranks = ZeRO-3 sharded over them, " + std::to_string(p.dp / fsdp) +
                    " replicas (HSDP)");
  }
  return 3;
}

// Megatron's distributed optimizer (ZeRO-1) unless FSDP shards the state (training_runs.h).
int zero_of(const RowReader& r, ParallelConfig& p, std::vector<std::string>& notes) {
  if (r.given("zero_stage")) return (int)r.integer("zero_stage");
  const int64_t dp = p.dp;
  if (r.given("fsdp")) {
    const json& f = r.row["fsdp"];
    if (f.is_string()) {
      int64_t ranks = maxtext_fsdp(f.get<std::string>(), dp);
      if (ranks == 0) throw Skip{"FSDP shard group not printed (\"" + f.get<std::string>() + "\")"};
      return zero3_of(ranks, p, notes);
    }
    if (!f.is_number_integer() || f.get<int64_t>() < 0) r.fail("fsdp", "expected a rank count");
    int64_t ranks = f.get<int64_t>();
    if (ranks == 1 && dp > 1) {  // one rank shards nothing: NeMo's on/off column
      notes.push_back("fsdp 1: NeMo's FSDP flag, sharded over all dp ranks");
      ranks = dp;
    }
    if (ranks > 0) {
      if (dp % ranks != 0) throw Skip{"FSDP ranks not dividing the data-parallel group"};
      return zero3_of(ranks, p, notes);
    }
    notes.push_back("fsdp 0: off");
  }
  if (dp == 1) return 0;
  notes.push_back("zero not printed: distributed optimizer (ZeRO-1)");
  return 1;
}

double measured_us_of(const RowReader& r, const ParallelConfig& p, int64_t seq, std::string& from) {
  const json& m = r.row.contains("measured") ? r.row["measured"] : json::object();
  if (m.contains("iter_time_s") && m["iter_time_s"].is_number()) {
    from = "iter_time_s";
    return m["iter_time_s"].get<double>() * 1e6;
  }
  if (m.contains("tokens_per_s_per_gpu") && m["tokens_per_s_per_gpu"].is_number()) {
    from = "tokens_per_s_per_gpu";
    double tps = m["tokens_per_s_per_gpu"].get<double>();
    if (!(tps > 0)) r.fail("measured/tokens_per_s_per_gpu", "expected a positive number");
    return (double)p.global_batch * (double)seq / (tps * (double)p.gpus) * 1e6;
  }
  throw Skip{"no iteration time or tokens/s/GPU printed"};
}

// The row's precision: bf16, or FP8 with its Transformer Engine recipe (training_runs.h).
void precision_of(const RowReader& r, TrainingRunCase& c) {
  std::string printed = r.string("precision"), p = lower(printed);
  auto has = [&](const char* s) { return p.find(s) != std::string::npos; };
  if (p.rfind("bf16", 0) == 0) return;
  if (has("nvfp4") || has("fp4")) throw Skip{"fp4 training (NVFP4) not modelled"};
  if (!has("fp8")) throw Skip{"precision \"" + printed + "\" not mapped"};
  c.precision = "fp8";
  c.fp8.on = true;
  if (has("mxfp8") || has("fp8-mx")) {
    c.fp8.recipe = Fp8Recipe::Mxfp8;
  } else if (has("current scaling") || has("fp8-cs")) {
    c.fp8.recipe = Fp8Recipe::Current;
  } else if (has("granularity")) {
    c.fp8.recipe = Fp8Recipe::Blockwise;
  } else if (c.source == "megatron_bridge_perf" &&
             (p == "fp8" || p.rfind("fp8 (not printed", 0) == 0)) {
    c.fp8.recipe = Fp8Recipe::Current;
    c.assumptions.push_back("fp8 recipe not printed: current scaling (Megatron-Bridge's)");
  } else if (has("hybrid") || p == "fp8") {
    c.fp8.recipe = Fp8Recipe::Delayed;
    if (p == "fp8") c.assumptions.push_back("fp8 recipe not printed: delayed scaling (NeMo's)");
  } else {
    throw Skip{"precision \"" + printed + "\" not mapped"};
  }
}

// Whether the row's framework runs Megatron-Core underneath (NeMo, Megatron-LM, Megatron-Bridge).
bool megatron_core(const std::string& framework) {
  return framework.find("NeMo") != std::string::npos ||
         framework.find("Megatron") != std::string::npos;
}

// A row run with NeMo or Megatron (Megatron-Core underneath) runs Megatron-Core's MoE layer with
// Transformer Engine (moe impl megatron_te); the JAX frameworks' rows keep the runtime's.
void megatron_moe_of(const std::string& framework, TrainingRunCase& c) {
  bool megatron = megatron_core(framework);
  if (!megatron || c.model.moe.experts == 0) return;
  c.run.runtime.block.moe = MoeImpl::MegatronTe;
  c.run.runtime.learned_positions.moe = MoeImpl::MegatronTe;
  c.assumptions.push_back(
      "MoE kernels: Megatron-Core's MoE layer with Transformer Engine "
      "(grouped GEMMs, fused permute and router)");
}

// Megatron-Core runs attention through Transformer Engine's fused kernels: gpt-oss's sinks inside
// the kernel (TE's learnable softmax offset), never transformers' eager path, and RoPE fused.
void megatron_attention_of(const std::string& framework, TrainingRunCase& c) {
  bool megatron = megatron_core(framework);
  if (!megatron || !c.model.attention_sinks) return;
  c.run.runtime.block.rope = RopeImpl::Fused;
  c.run.runtime.learned_positions.rope = RopeImpl::Fused;
  c.assumptions.push_back(
      "attention: Transformer Engine's fused attention with the sinks in the kernel, RoPE fused");
}

// Expert tensor parallelism: as printed (tp, or 1: Megatron's MoE parallel folding); not printed,
// tp, unless EP does not divide dp, where the folded layout (etp 1, EP out of tp x cp x dp) is the
// only one Megatron can run (the Qwen3-MoE recipes set expert_tensor_parallel_size 1).
void expert_tp_of(const RowReader& r, TrainingRunCase& c) {
  ParallelConfig& p = c.parallel;
  if (c.model.moe.experts == 0 || p.tp == 1) return;
  if (r.given("etp")) {
    int64_t etp = r.integer("etp");
    if (etp != 1 && etp != p.tp)
      throw Skip{"expert tensor parallelism other than tp or 1 not modelled"};
    p.etp = etp;
  } else if (p.ep > 1 && p.dp % p.ep != 0) {
    p.etp = 1;
    c.assumptions.push_back("etp not printed: 1, MoE parallel folding (EP " + std::to_string(p.ep) +
                            " does not divide dp " + std::to_string(p.dp) + ")");
  }
}

// The virtual-pipeline size a source prints for each model, GPU and layout (tp, pp, cp, ep,
// micro-batch) across its rows, where all agree: "source|model|gpu|tp|pp|cp|ep|mb" -> vp.
using PrintedVp = std::map<std::string, int64_t>;

std::string layout_key(const json& row) {
  std::string k;
  for (const char* f : {"source_id", "model", "gpu", "tp", "pp", "cp", "ep", "micro_batch"}) {
    const json& v = row.contains(f) ? row[f] : json();
    k += (v.is_string() ? v.get<std::string>() : v.dump()) + "|";
  }
  return k;
}

// Sources whose tables print VP for every pipeline-parallel row except where one release's table
// prints the whole column as NA (DGX Cloud Benchmarking's 25.02.01 Nemotron-4 340B table, whose
// layout the 24.11 and 25.04.00 tables and NeMo's scripts/performance config for it,
// recommended_model_configs/model_configs_h100.csv, print with VP 12). There a missing VP is the
// recipe's, read from the source's other releases. In Megatron-Bridge's tables a blank VP stands
// beside printed ones in the same table: the recipe left virtual pipelining off (vp 1).
constexpr std::string_view kVpFromOtherReleases = "dgxc_benchmarking";

// The VPs kVpFromOtherReleases prints, by layout.
PrintedVp printed_vp_of(const json& rows) {
  PrintedVp vp;
  std::set<std::string> ambiguous;
  for (const json& row : rows) {
    if (!row.is_object() || !row.contains("vp") || !row["vp"].is_number_integer()) continue;
    const json& source = row.contains("source_id") ? row["source_id"] : json();
    if (!source.is_string() || source.get<std::string>() != kVpFromOtherReleases) continue;
    std::string k = layout_key(row);
    int64_t v = row["vp"].get<int64_t>();
    auto [it, added] = vp.emplace(k, v);
    if (!added && it->second != v) ambiguous.insert(k);
  }
  for (const auto& k : ambiguous) vp.erase(k);
  return vp;
}

TrainingRunCase case_of(const RowReader& r, const json& models, const PrintedVp& printed_vp) {
  TrainingRunCase c;
  c.id = r.string("id");
  c.source = r.string("source_id");
  c.split = training_run_split(c.id);
  if (r.string("completeness") == "partial") throw Skip{"partial row (a required field unknown)"};
  if (r.given("task") && r.string("task") != "pretrain")
    throw Skip{"task other than pretraining not modelled"};
  std::string printed_gpu = r.string("gpu");
  const GpuMap* g = nullptr;
  for (const auto& x : kGpus)
    if (printed_gpu.rfind(x.printed, 0) == 0) g = &x;
  if (!g) throw Skip{"GPU " + printed_gpu.substr(0, printed_gpu.find(' ')) + " has no GPU file"};
  c.gpu = g->gpu;
  c.cluster = g->cluster;
  int64_t seq = r.integer("seq_len");
  c.model = training_run_model(models, r.string("model"), seq, r.where, c.family);
  precision_of(r, c);
  if (r.given("layers_override")) {
    c.model.layers = r.integer("layers_override");
    c.assumptions.push_back("proxy model of " + std::to_string(c.model.layers) + " layers");
  }
  ParallelConfig& p = c.parallel;
  p.gpus = r.integer("num_gpus");
  p.tp = r.integer("tp");
  p.pp = r.integer("pp");
  p.dp = r.integer("dp");
  p.cp = r.integer("cp");
  p.ep = r.integer_or("ep", 1, c.assumptions, "ep not printed: 1");
  // (the map holds kVpFromOtherReleases' layouts only: its source is part of the key)
  auto other_release =
      r.given("vp") || p.pp == 1 ? printed_vp.end() : printed_vp.find(layout_key(r.row));
  if (other_release != printed_vp.end()) {
    p.vp = other_release->second;
    c.assumptions.push_back("vp not printed: " + std::to_string(p.vp) +
                            ", as the source prints for this model, GPU and layout in its other "
                            "releases");
  } else {
    p.vp = r.integer_or("vp", 1, c.assumptions, "vp not printed: 1");
  }
  if (p.pp == 1 && p.vp > 1) {  // no pipeline to interleave (the DGX Cloud H100 Llama 4 rows)
    c.assumptions.push_back("vp " + std::to_string(p.vp) + " printed with pp 1: no pipeline, vp 1");
    p.vp = 1;
  }
  p.schedule = p.vp > 1 ? PipelineSchedule::Interleaved : PipelineSchedule::OneFOneB;
  // Layers that do not divide into the pp x vp chunks but do with the embedding and the loss
  // counted as a layer each: the NeMo / Megatron-Bridge recipes' account_for_embedding_ and
  // account_for_loss_in_pipeline_split (set in their Llama 3.1 405B and MoE recipes).
  if (p.divides_only_counting_embedding_and_loss(c.model.layers)) {
    p.split_counts_embedding = p.split_counts_loss = true;
    c.assumptions.push_back(
        "layers split with the embedding and the loss counted (Megatron's "
        "account_for_*_in_pipeline_split)");
  }
  p.microbatch = r.integer_or("micro_batch", 1, c.assumptions, "micro-batch not printed: 1");
  p.global_batch = r.integer("global_batch");
  if (r.given("sp"))
    p.sp = r.row["sp"].is_boolean() && r.row["sp"].get<bool>();
  else if (p.tp > 1) {
    p.sp = true;
    c.assumptions.push_back("sp not printed: on (tp > 1)");
  }
  expert_tp_of(r, c);
  p.zero = zero_of(r, p, c.assumptions);
  std::string rc = r.given("recompute") ? lower(r.string("recompute")) : "";
  if (rc.empty()) c.assumptions.push_back("recompute not printed: none");
  if (!rc.empty() && rc.rfind("none", 0) != 0) throw Skip{"recompute \"" + rc + "\" not mapped"};
  p.recompute = Recompute::None;
  c.run.phase = Phase::Train;
  c.run.batch = p.microbatch;
  c.run.seq = seq;
  c.run.optimizer = Optimizer::AdamW;
  c.run.recompute = p.recompute;
  c.measured_us = measured_us_of(r, p, seq, c.measured_from);
  std::string fw = r.given("framework") ? r.string("framework") : "";
  megatron_moe_of(fw, c);
  megatron_attention_of(fw, c);
  if (c.fp8.on) {  // NeMo 2.0's and Megatron-Bridge's recipes keep fp8 primary weights
    bool fp8_params =
        fw.find("NeMo 2.0") != std::string::npos || fw.find("Megatron-Bridge") != std::string::npos;
    if (fp8_params && p.zero >= 1 && p.zero <= 2 && p.dp * p.cp > 1) {
      c.fp8.param_gather = true;
      c.assumptions.push_back("fp8 parameter all-gather (the framework's fp8_params recipe)");
    }
  }
  return c;
}

}  // namespace

TrainingRunSet parse_training_runs(const json& doc, const std::string& label) {
  if (!doc.is_object() || !doc.contains("rows") || !doc["rows"].is_array())
    throw InputError(located(label, "/rows: missing; expected an array of training runs"));
  if (!doc.contains("models") || !doc["models"].is_object())
    throw InputError(located(label, "/models: missing; expected the table of model shapes"));
  TrainingRunSet set;
  set.file = label;
  const json& rows = doc["rows"];
  set.rows = (int64_t)rows.size();
  PrintedVp printed_vp = printed_vp_of(rows);
  for (size_t i = 0; i < rows.size(); ++i) {
    std::string where = label + ": /rows/" + std::to_string(i);
    if (!rows[i].is_object()) throw InputError(where + ": expected an object");
    RowReader r{rows[i], where};
    try {
      set.cases.push_back(case_of(r, doc["models"], printed_vp));
    } catch (const Skip& s) {
      set.skipped.push_back({r.string("id"), s.reason});
    }
  }
  return set;
}

TrainingRunSet load_training_runs(const std::string& path) {
  return parse_training_runs(read_json_file(path), path);
}

}  // namespace ridgeline
