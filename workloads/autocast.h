// Training with fp32 master parameters under torch.autocast (--master-weights fp32): the forward
// sections of a step rewritten as PyTorch runs them, after the builders emitted them for 16-bit
// parameters. What the H200 profiles of transformers 5.17's Llama code under
// torch.autocast('cuda', bfloat16) with fp32 parameters show (validate/data/
// h200-sxm-hf-2026-12-01.json, the fp32amp records, against the bf16 ones):
//   - every GEMM autocast runs casts its fp32 weight to bf16 first (once a forward: autocast's
//     cast cache), and every fp32 input it reads (q/k/v and gate/up read the fp32 norm output,
//     each casting it again; the LM head too): bfloat16_copy kernels, 126 more a step;
//   - the residual stream is fp32 (the embedding table is fp32, and fp32 + bf16 promotes), so
//     the norms run in fp32 without their casts and the residual adds mix fp32 and bf16;
//   - RoPE's cos/sin tables stay fp32 (x.dtype is fp32), so q*cos and rotate_half(q)*sin promote
//     to fp32 and SDPA casts q and k back to bf16 (v, a GEMM's output, is bf16 already);
//   - in backward each cast's gradient is cast back to fp32 (ToCopyBackward0, 80 more), a
//     promoted op's gradient is cast back to its bf16 input's dtype, and the embedding, the
//     weight gradients and the optimizer are fp32 (train_builder.cpp).
#pragma once

#include "workloads/model_config.h"
#include "workloads/op_graph.h"
#include "workloads/run_config.h"

namespace ridgeline {

// Whether the step trains fp32 parameters under autocast.
bool under_autocast(const RunConfig& run);
// The parameters' (and their gradients' and AdamW state's) dtype: fp32 under autocast, else the
// weights' dtype.
DType param_dtype(const RunConfig& run);

// Rewrites the forward sections (embedding, decoder blocks, head) of `g` as autocast runs them;
// the graph is unchanged unless under_autocast(run).
void apply_autocast(OpGraph& g, const RunConfig& run);

}  // namespace ridgeline
