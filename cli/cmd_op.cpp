// `ridgeline op`: single kernels. Either a JSONL batch (--input FILE, or - for stdin), one
// result per line in the same order, or one op described by flags:
//   ridgeline op --gpu h100-sxm --input ops.jsonl --format jsonl [--jobs N]
//   ridgeline op --gpu h100-sxm --op gemm --m 4096 --n 4096 --k 4096 --dtype bf16
// Exit status 1 when any line failed; the other lines are still predicted and printed.
// --jobs N predicts a JSONL batch on N threads, printing the bytes one thread prints.
#include "cli/batch_run.h"
#include "cli/commands.h"
#include "cli/op_runner.h"
#include "cli/op_stream.h"
#include "cli/views/report_views.h"
#include "common/errors.h"
#include "hardware/gpu_load.h"

#include <fstream>
#include <iostream>
#include <memory>

namespace ridgeline {

namespace {

struct OpOptions {
  std::string gpu = "h100-sxm";
  std::vector<std::string> sets;
  std::string profile;
  std::string input;
  std::string format;
  std::string id = "op";
  std::string op, dtype = "bf16", kind, impl;
  long long m = 0, n = 0, k = 0, batch = 0, heads = 0, kv_heads = 0, head_dim = 0, q_len = 0,
            kv_len = 0;
  long long numel = 0, rows = 0, cols = 0;
  bool causal = false, warm_l2 = false;
  double masked_fraction = 0;
  int jobs = 1;
};

// The JSON object the flags describe; only the flags given, so the parser checks them all.
nlohmann::json flags_object(const OpOptions& o, CLI::App& cmd) {
  nlohmann::json j;
  j["id"] = o.id;
  j["op"] = o.op;
  j["dtype"] = o.dtype;
  auto put = [&](const char* flag, const char* key, long long v) {
    if (cmd.count(flag) > 0) j[key] = v;
  };
  put("--m", "m", o.m);
  put("--n", "n", o.n);
  put("--k", "k", o.k);
  put("--batch", "batch", o.batch);
  put("--heads", "heads", o.heads);
  put("--kv-heads", "kv_heads", o.kv_heads);
  put("--head-dim", "head_dim", o.head_dim);
  put("--q-len", "q_len", o.q_len);
  put("--kv-len", "kv_len", o.kv_len);
  put("--numel", "numel", o.numel);
  put("--rows", "rows", o.rows);
  put("--cols", "cols", o.cols);
  if (o.op == "attention")
    j["causal"] = o.causal;
  else if (cmd.count("--causal") > 0)
    j["causal"] = o.causal;
  if (cmd.count("--kind") > 0) j["kind"] = o.kind;
  if (cmd.count("--impl") > 0) j["impl"] = o.impl;
  if (cmd.count("--warm-l2") > 0) j["warm_l2"] = o.warm_l2;
  if (cmd.count("--masked-fraction") > 0) j["masked_fraction"] = o.masked_fraction;
  return j;
}

// Exit status 1 when any line failed; each failed line's message and the count on stderr.
int report_failures(const std::vector<std::string>& errors, size_t ops) {
  for (const auto& e : errors) std::cerr << "ridgeline: error: " << e << "\n";
  if (!errors.empty())
    std::cerr << "ridgeline: " << errors.size() << " of " << ops << " ops failed\n";
  return errors.empty() ? 0 : 1;
}

// --input in JSONL: printed as it is predicted (op_stream.h), the same bytes as the view.
int stream_input(const OpOptions& o, const GpuSpec& gpu) {
  OpStreamSummary s;
  if (o.input == "-") {
    s = stream_op_jsonl(std::cin, "stdin", gpu, std::cout, o.jobs);
  } else {
    std::ifstream in(o.input);
    if (!in) throw InputError(located("--input " + o.input, "cannot open file"));
    s = stream_op_jsonl(in, o.input, gpu, std::cout, o.jobs);
  }
  return report_failures(s.errors, s.ops);
}

}  // namespace

Command add_op_command(CLI::App& app) {
  auto o = std::make_shared<OpOptions>();
  CLI::App* cmd =
      app.add_subcommand("op", "Predict single kernels (JSONL batch or one op from flags)");
  cmd->add_option("--gpu", o->gpu, "GPU preset name or path to a .json (default h100-sxm)");
  cmd->add_option("--set", o->sets,
                  "What-if override of a GPU figure, PATH=VALUE, +N%, -N% or Nx (repeatable)");
  cmd->add_option("--profile", o->profile,
                  "Calibrated profile: a built-in one's name (h100-sxm), a file from `ridgeline "
                  "calibrate fit`, or none; default: the GPU's own, else its architecture's");
  cmd->add_option("--input", o->input, "JSONL file of ops, one per line ('-' for stdin)");
  cmd->add_option("--format", o->format,
                  "table, json, jsonl or csv (default: table for flags, jsonl for --input)")
      ->check(CLI::IsMember(op_views().names()));
  cmd->add_option("--jobs", o->jobs,
                  "Threads predicting a JSONL --input at once (default 1); same output");
  cmd->add_option("--id", o->id, "Id of the op given by flags");
  cmd->add_option("--op", o->op,
                  "gemm, attention, elementwise, reduce, rmsnorm, layernorm, softmax");
  cmd->add_option("--dtype", o->dtype, "fp32, tf32, bf16, fp16, fp8 (default bf16)");
  cmd->add_option("--kind", o->kind, "elementwise or reduce kind");
  cmd->add_option(
      "--impl", o->impl,
      "Implementation: attention cudnn, flash2, flash3, efficient or math (flashmla: MLA "
      "decodes in a model only); rmsnorm, "
      "layernorm and softmax aten or triton; elementwise vectorized or generic "
      "(default: what PyTorch runs on the GPU)");
  for (auto [flag, target] :
       std::initializer_list<std::pair<const char*, long long*>>{{"--m", &o->m},
                                                                 {"--n", &o->n},
                                                                 {"--k", &o->k},
                                                                 {"--batch", &o->batch},
                                                                 {"--heads", &o->heads},
                                                                 {"--kv-heads", &o->kv_heads},
                                                                 {"--head-dim", &o->head_dim},
                                                                 {"--q-len", &o->q_len},
                                                                 {"--kv-len", &o->kv_len},
                                                                 {"--numel", &o->numel},
                                                                 {"--rows", &o->rows},
                                                                 {"--cols", &o->cols}}) {
    cmd->add_option(flag, *target, "op dimension");
  }
  cmd->add_flag("--causal", o->causal, "attention: causal mask");
  cmd->add_option("--masked-fraction", o->masked_fraction,
                  "softmax: the mean fraction of each row masked to the dtype's min (0 to 1)");
  cmd->add_flag("--warm-l2", o->warm_l2,
                "memory-bound ops: inputs left in L2 by the previous kernel");
  return [o, cmd]() {
    bool from_flags = cmd->count("--op") > 0;
    if (from_flags == !o->input.empty()) {
      throw InputError("op: give either --input FILE or --op KIND with its dimensions");
    }
    checked_jobs(o->jobs);
    std::string format = !o->format.empty() ? o->format : (from_flags ? "table" : "jsonl");
    const bool streamed = !from_flags && format == "jsonl";
    if (o->jobs > 1 && !streamed)
      throw InputError("--jobs " + std::to_string(o->jobs) +
                       ": only with --input in JSONL (its default --format); " +
                       (from_flags ? std::string("one op from flags")
                                   : "--format " + format + " (one result list)") +
                       " runs on one thread");
    GpuSpec gpu = load_gpu(o->gpu, o->sets, o->profile);
    if (streamed) return stream_input(*o, gpu);
    std::vector<OpResult> results;
    if (from_flags) {
      results.push_back(run_op_object(flags_object(*o, *cmd), "flags", o->id, gpu));
    } else if (o->input == "-") {
      results = run_op_lines(std::cin, "stdin", gpu);
    } else {
      std::ifstream in(o->input);
      if (!in) throw InputError(located("--input " + o->input, "cannot open file"));
      results = run_op_lines(in, o->input, gpu);
    }
    op_views().pick(format, "--format")(std::cout, OpReport{gpu, results});
    std::vector<std::string> errors;
    for (const auto& r : results) {
      if (!r.error.empty()) errors.push_back(r.error);
    }
    return report_failures(errors, results.size());
  };
}

}  // namespace ridgeline
