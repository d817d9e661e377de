// See predict_options.h.
#include "cli/predict_options.h"

#include "common/errors.h"

namespace ridgeline {

void add_target_flags(CLI::App& cmd, PredictOptions& o) {
  cmd.add_option("--gpu", o.gpu, "GPU preset name or path to a .json (default h100-sxm)");
  cmd.add_option("--set", o.sets,
                 "What-if override of a GPU figure, PATH=VALUE, PATH=+30%, PATH=1.3x (repeatable)");
  cmd.add_option("--profile", o.profile,
                 "Calibrated profile: a built-in name (h100-sxm), a file from `ridgeline calibrate "
                 "fit`, or none; default: the "
                 "GPU's own, else its architecture's");
  add_workload_flags(cmd, o, true);
  cmd.add_option("--format", o.format, "table (default), json or csv")
      ->check(CLI::IsMember({"table", "json", "csv"}));
}

void add_predict_flags(CLI::App& cmd, PredictOptions& o) {
  add_target_flags(cmd, o);
  cmd.add_flag("--ignore-memory", o.ignore_memory,
               "Predict even when the step does not fit in memory");
  cmd.add_option("--trace", o.trace, "Write a Chrome/Perfetto trace of the step to this file");
  cmd.add_option("--top", o.top, "Kernels listed in the table (default 10; table format only)")
      ->check(CLI::PositiveNumber);
}

void add_workload_flags(CLI::App& cmd, PredictOptions& o, bool required) {
  cmd.add_option("--model", o.model,
                 "Model preset name, path to a Hugging Face config.json, or the folder holding it")
      ->required(required);
  cmd.add_option("--phase", o.phase,
                 "prefill, decode, train, or generate (a generate() call: --seq prompt tokens, "
                 "then --new-tokens)")
      ->required(required)
      ->check(CLI::IsMember({"prefill", "decode", "train", "generate"}));
  cmd.add_option("--new-tokens", o.new_tokens,
                 "Tokens generate() produces after the prompt (--phase generate): time to the "
                 "first token, per token and total");
  cmd.add_option("--batch", o.batch, "Sequences per step (default 1)");
  cmd.add_option("--seq", o.seq, "Prompt tokens (prefill) or sequence length (train)");
  cmd.add_option("--kv-len", o.kv_len,
                 "Cached tokens: before the new one (decode), or before the prompt chunk "
                 "(prefill of a chunk over a cached prefix)");
  cmd.add_option("--kv-cache-impl", o.kv_cache_impl,
                 "transformers' cache class: dynamic (DynamicCache, the hf-transformers default) "
                 "or static (StaticCache); only with a runtime that uses them")
      ->check(CLI::IsMember({"dynamic", "static"}));
  cmd.add_option("--attention-backend", o.attention_backend,
                 "Attention kernel: sdpa (what PyTorch's SDPA picks on the GPU), cudnn, flash2, "
                 "flash3, efficient or math (default: the runtime's attention/backend)");
  cmd.add_option(
         "--max-cache-len", o.max_cache_len,
         "A StaticCache's length, which attention spans in decode (runtimes with "
         "kv_cache/update static_index_copy, e.g. hf-transformers with --kv-cache-impl static; "
         "default: the "
         "positions the step reaches)")
      ->check(CLI::PositiveNumber);
  cmd.add_option("--blocks", o.blocks,
                 "Only N >= 1 decoder blocks (no embedding, final norm or LM head)")
      ->check(CLI::PositiveNumber);
  cmd.add_option("--logits", o.logits, "last (default) or all positions")
      ->check(CLI::IsMember({"last", "all"}));
  cmd.add_option("--launch", o.launch, "graph (default) or eager")
      ->check(CLI::IsMember({"graph", "eager"}));
  cmd.add_option("--runtime", o.runtime,
                 "Which kernels the implementation launches: a preset (pytorch-eager, the "
                 "default, fused, hf-transformers or torch-compile) or a runtime .json file "
                 "(docs/runtimes.md)");
  cmd.add_option("--weights", o.weights,
                 "Weight precision: bf16 (default), fp16, fp32, fp8 (e4m3, inference), nvfp4 "
                 "(4.5 bits; W4A4 GEMMs on FP4 tensor cores, dequantized to bf16 in the GEMM "
                 "where the GPU has none; inference), int8 or int4 (weight-only, dequantized in "
                 "the GEMM; inference)")
      ->check(CLI::IsMember({"bf16", "fp16", "fp32", "fp8", "nvfp4", "int8", "int4"}));
  cmd.add_option("--expert-weights", o.expert_weights,
                 "Routed experts' weights: same (as --weights, default) or mxfp4 (4.25 bits, "
                 "read by a 16-bit weight-only GEMM, as serving engines run gpt-oss's "
                 "checkpoint; inference)")
      ->check(CLI::IsMember({"same", "mxfp4"}));
  cmd.add_option("--activations", o.activations,
                 "Activation precision: bf16 (default), fp16, fp32 or fp8 (norms, elementwise "
                 "kernels, attention's queries)")
      ->check(CLI::IsMember({"bf16", "fp16", "fp32", "fp8"}));
  cmd.add_option("--kv-cache", o.kv_cache,
                 "KV-cache precision: bf16 (default), fp16, fp32 or fp8 (what attention reads)")
      ->check(CLI::IsMember({"bf16", "fp16", "fp32", "fp8"}));
  cmd.add_option("--optimizer", o.optimizer, "none (default) or adamw (train)")
      ->check(CLI::IsMember({"none", "adamw"}));
  cmd.add_option("--recompute", o.recompute,
                 "Recompute activations in the backward pass (train): none (default), selective "
                 "(the attention kernels) or full (the whole block; --recompute alone)")
      ->expected(0, 1)
      ->transform([](std::string v) {
        if (v.empty()) return std::string("full");
        if (v != "none" && v != "selective" && v != "full")
          throw CLI::ValidationError("takes none, selective or full, got " + v);
        return v;
      });
  cmd.add_option("--master-weights", o.master_weights,
                 "Training parameters: none (default: in the --weights dtype) or fp32 (fp32 "
                 "parameters cast to --weights under torch.autocast; fp32 gradients and optimizer)")
      ->check(CLI::IsMember({"none", "fp32"}));
  cmd.add_flag("--grad-scaler", o.grad_scaler,
               "torch.amp.GradScaler's kernels in an fp16 training step (with --master-weights "
               "fp32 and --optimizer; modelled, not measured)");
  cmd.add_option("--moe-imbalance", o.moe_imbalance,
                 "Busiest expert's tokens over the mean (default 1)");
}

RunConfig run_config_from(const PredictOptions& o) {
  RunConfig r;
  r.phase =  // generate: the prompt's prefill, then decode steps (model/generate_predict.h)
      o.phase == "decode" ? Phase::Decode : (o.phase == "train" ? Phase::Train : Phase::Prefill);
  r.batch = o.batch;
  r.seq = o.seq;
  r.kv_len = o.kv_len;
  r.blocks = o.blocks;
  r.cache_capacity = o.max_cache_len;
  r.logits_all = o.logits == "all";
  r.launch = o.launch == "eager" ? LaunchMode::Eager : LaunchMode::Graph;
  r.runtime = load_runtime(o.runtime);
  if (!o.kv_cache_impl.empty()) select_cache_impl(r.runtime, o.kv_cache_impl, "--kv-cache-impl");
  if (!o.attention_backend.empty())
    select_attention_backend(r.runtime, o.attention_backend, "--attention-backend");
  if (o.weights == "int8" || o.weights == "int4") {  // weight-only: bf16 math, narrow weights
    r.weights = DType::Bf16;
    r.weight_bits = o.weights == "int8" ? 8 : 4;
  } else {
    r.weights = *parse_dtype(o.weights);
  }
  r.activations = *parse_dtype(o.activations);
  r.kv_cache = *parse_dtype(o.kv_cache);
  r.mxfp4_experts = o.expert_weights == "mxfp4";
  r.optimizer = o.optimizer == "adamw" ? Optimizer::AdamW : Optimizer::None;
  r.recompute = o.recompute == "full" || o.recompute.empty() ? Recompute::Full
                : o.recompute == "selective"                 ? Recompute::Selective
                                                             : Recompute::None;
  r.master_weights = o.master_weights == "fp32" ? MasterWeights::Fp32 : MasterWeights::None;
  r.grad_scaler = o.grad_scaler;
  r.moe_imbalance = o.moe_imbalance;
  return r;
}

void check_generate_flags(const CLI::App& cmd, const PredictOptions& o, bool generate_allowed) {
  bool given = cmd.get_option("--new-tokens")->count() > 0;
  if (o.phase != "generate") {
    if (given)
      throw InputError("--new-tokens: the tokens of a generate() call; only with --phase generate");
    return;
  }
  if (!generate_allowed)
    throw InputError("--phase generate: " + cmd.get_name() +
                     " prices single steps (prefill, decode, train); predict prices generate()");
  if (o.seq < 1) throw InputError("--seq: --phase generate needs the prompt's tokens (>= 1)");
  if (!given) throw InputError("--new-tokens: --phase generate needs the tokens to generate");
  if (o.new_tokens < 1)
    throw InputError("--new-tokens: generate needs at least one new token, got " +
                     std::to_string(o.new_tokens));
}

void add_parallel_flags(CLI::App& cmd, PredictOptions& o) {
  cmd.add_option("--cluster", o.cluster,
                 "Cluster preset name or path to a .json: predict the model on many GPUs of it");
  cmd.add_option("--gpus", o.gpus, "GPUs of the job: --tp x --pp x --dp x --cp (with --cluster)");
  cmd.add_option("--tp", o.tp, "Tensor-parallel degree (default 1)");
  cmd.add_option("--pp", o.pp, "Pipeline-parallel stages (default 1)");
  cmd.add_option("--vp", o.vp,
                 "Virtual stages (model chunks) per GPU, with --schedule interleaved");
  cmd.add_option("--dp", o.dp, "Data-parallel degree (default --gpus / (--tp x --pp x --cp))");
  cmd.add_option("--cp", o.cp, "Context-parallel degree: ring attention over seq / cp (default 1)");
  cmd.add_option("--ep", o.ep,
                 "Expert-parallel degree, out of the data-parallel ranks (default 1)");
  cmd.add_option("--etp", o.etp,
                 "Expert tensor parallelism: --tp (default: experts split like the MLP) or 1 "
                 "(Megatron's MoE parallel folding: whole experts on each rank's sequence shard, "
                 "--ep out of --tp x --cp x --dp; needs --sp)");
  cmd.add_flag("--sp", o.sp, "Sequence parallelism in the TP group (reduce-scatter + all-gather)");
  cmd.add_option("--zero", o.zero, "ZeRO stage 0-3 (default 0): optimizer, + gradients, + weights");
  cmd.add_option("--fsdp-shard", o.fsdp_shard,
                 "With --zero 3: shard over N data-parallel ranks, replicated over dp / N (HSDP; "
                 "default all dp ranks)");
  cmd.add_option("--microbatch", o.microbatch,
                 "Sequences per micro-batch and data-parallel rank (train)");
  cmd.add_option("--global-batch", o.global_batch, "Sequences per optimizer step (train)");
  cmd.add_option("--schedule", o.schedule,
                 "Pipeline schedule: 1f1b (default), gpipe or interleaved")
      ->check(CLI::IsMember({"gpipe", "1f1b", "interleaved"}));
  cmd.add_option("--pipeline-split-counts", o.split_counts,
                 "embedding, loss or embedding,loss: count them as one layer each when the layers "
                 "are split over the --pp x --vp model chunks (Megatron's "
                 "account_for_*_in_pipeline_split; the first / last chunk holds one decoder layer "
                 "fewer)")
      ->delimiter(',');
}

ParallelConfig parallel_config_from(const CLI::App& cmd, const PredictOptions& o, RunConfig& run) {
  auto given = [&](const char* flag) { return cmd.get_option(flag)->count() > 0; };
  const char* strategy[] = {
      "--gpus",       "--tp",           "--pp",       "--vp",         "--dp",
      "--cp",         "--ep",           "--etp",      "--sp",         "--zero",
      "--microbatch", "--global-batch", "--schedule", "--fsdp-shard", "--pipeline-split-counts"};
  if (o.cluster.empty()) {
    for (const char* f : strategy)
      if (given(f)) throw InputError(std::string(f) + ": a parallel strategy needs --cluster");
    return {};
  }
  if (!given("--gpus")) throw InputError("--gpus: --cluster needs the number of GPUs of the job");
  ParallelConfig p;
  p.gpus = o.gpus;
  p.tp = o.tp, p.pp = o.pp, p.vp = o.vp, p.cp = o.cp, p.ep = o.ep;
  if (given("--etp")) {
    if (o.etp < 1) throw InputError("--etp: must be at least 1, got " + std::to_string(o.etp));
    p.etp = o.etp;
  }
  int64_t per_replica = p.tp * p.pp * p.cp;
  p.dp = given("--dp") ? o.dp : (per_replica > 0 ? p.gpus / per_replica : 0);
  if (!given("--dp") && per_replica > 0 && p.gpus % per_replica != 0)
    throw InputError("--gpus: " + std::to_string(p.gpus) +
                     " GPUs do not divide into --tp x --pp x --cp = " +
                     std::to_string(per_replica) + " per replica");
  p.sp = o.sp;
  p.zero = o.zero;
  if (given("--fsdp-shard")) {
    if (o.fsdp_shard < 1)
      throw InputError("--fsdp-shard: a shard group of at least 1 data-parallel rank, got " +
                       std::to_string(o.fsdp_shard));
    p.fsdp_shard = o.fsdp_shard;
  }
  p.schedule = o.schedule == "gpipe"         ? PipelineSchedule::GPipe
               : o.schedule == "interleaved" ? PipelineSchedule::Interleaved
                                             : PipelineSchedule::OneFOneB;
  p.recompute = run.recompute;
  if (given("--pipeline-split-counts")) {
    for (const std::string& part : o.split_counts) {
      if (part != "embedding" && part != "loss")
        throw InputError(
            "--pipeline-split-counts: expected embedding, loss or embedding,loss, "
            "got \"" +
            part + "\"");
      bool& counted = part == "embedding" ? p.split_counts_embedding : p.split_counts_loss;
      if (counted) throw InputError("--pipeline-split-counts: \"" + part + "\" given twice");
      counted = true;
    }
  }
  if (run.master_weights != MasterWeights::None || run.grad_scaler)
    throw InputError(std::string(run.grad_scaler ? "--grad-scaler" : "--master-weights") +
                     ": autocast over fp32 parameters is modelled on one GPU; with --cluster the "
                     "optimizer state holds Megatron's fp32 master copy already");
  if (run.phase == Phase::Train) {
    if (given("--batch"))
      throw InputError("--batch: training on a cluster takes --microbatch and --global-batch");
    for (const char* f : {"--microbatch", "--global-batch"})
      if (!given(f)) throw InputError(std::string(f) + ": training on a cluster needs it");
    p.microbatch = o.microbatch;
    p.global_batch = o.global_batch;
    run.batch = o.microbatch;
  } else {
    for (const char* f : {"--microbatch", "--global-batch"})
      if (given(f))
        throw InputError(std::string(f) + ": " + phase_name(run.phase) +
                         " takes --batch (per data-parallel replica)");
    p.microbatch = run.batch;
    p.global_batch = run.batch * std::max<int64_t>(p.dp, 1);
  }
  return p;
}

}  // namespace ridgeline
