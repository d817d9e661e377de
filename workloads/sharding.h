// The graph one GPU runs for one micro-batch under a parallel strategy (parallel_config.h), as
// Megatron-LM shards a transformer. Sizes first: the model is built with its per-rank shapes
// (shard_model: heads / tp, KV heads / tp or one replicated, ffn / tp, the padded vocabulary / tp,
// experts over ep ranks, seq / cp tokens), so q_proj's n is heads * head_dim / tp and o_proj's k
// the same. Then each section is copied node by node (rewrite_section) and the collectives are
// put in on the comm stream, by role, never by name:
//   TP  forward: an all-reduce of the activations after each row-parallel GEMM (o, down, c_proj),
//       after the MoE combine and after the vocab-parallel embedding; backward: an all-reduce of
//       the input gradient after the dgrad of the first column-parallel GEMM of a group (q or
//       qkv, gate or gate_up or c_fc, experts' gate_up, the LM head), which runs beside that
//       GEMM's wgrad (Megatron's async all-reduce); only the kernels after the wgrad wait for it.
//       With --sp: a reduce-scatter instead of each forward all-reduce, an all-gather after each
//       norm (norms and residual adds run on tokens / tp), and in backward an all-gather of the
//       gradient before each row-parallel dgrad and a reduce-scatter for each all-reduce.
//       The vocab-parallel cross entropy all-reduces three floats a token.
//   CP  ring attention: each attention kernel becomes cp steps over the rank's two sequence
//       chunks (zig-zag, so every rank does the same work): the causal diagonal step, then cp - 1
//       steps of half a block each, every one after the send/recv that brings its K and V chunk
//       (K, V and their gradients in backward) from the neighbour; sends overlap the steps.
//   EP  an all-to-all of the tokens (top_k rows of h each) before the experts' gate_up GEMM
//       (dispatch) and after their down GEMM (combine); the reverse pair in backward.
// Pipeline send/recv, data-parallel gradient reduction and ZeRO gathers are between micro-batches
// and iterations: model/parallel_predict.h places them.
#pragma once

#include "workloads/model_config.h"
#include "workloads/op_graph.h"
#include "workloads/parallel_config.h"
#include "workloads/run_config.h"

namespace ridgeline {

// The model as one TP rank holds it (shapes only; name and source unchanged).
ModelConfig shard_model(const ModelConfig& model, const ParallelConfig& p);

// The run as one rank's graph sees it: micro-batch sequences of seq / cp tokens (train), the
// experts spread over ep ranks, no optimizer (the step runs on the rank's shard, priced apart).
RunConfig shard_run(const RunConfig& run, const ParallelConfig& p);

// The per-rank graph of one micro-batch: embedding, one decoder block repeated layers / (pp * vp)
// times (one model chunk), head, and in training the loss and the backward sections. A model of
// several layer kinds has one block section a kind, repeated as often as the whole model has
// it; the caller counts each model chunk's own (ParallelConfig::chunk_range, layer_groups_in).
// Which stage runs which sections is the caller's choice (the first stage the embedding, the
// last the head and loss).
OpGraph build_rank_graph(const ModelConfig& model, const RunConfig& run, const ParallelConfig& p,
                         const ClusterLimits& cluster);

// One serving step's per-rank graph (graph_builder.h's build_serving_step_graph, attention left
// out) over the sharded model, layers / pp decoder blocks, with the forward TP all-reduces and EP
// all-to-alls of `tokens` tokens put in as above. For serve/'s multi-GPU step model.
OpGraph build_rank_serving_step_graph(const ModelConfig& model, const RunConfig& run,
                                      const ParallelConfig& p, const ClusterLimits& cluster,
                                      int64_t tokens, int64_t sampled);

// The ranks of a group's collective that share a node: ranks are laid out TP fastest, then CP,
// DP (EP inside it), PP. Where the node's GPUs over the group's stride do not divide the group
// (a 72-GPU NVL72 domain holding 18 of a 32-rank group), nodes hold uneven shares; the
// collective model takes nodes of equal share, so this is the largest that divides the group
// (16 of 32): even_ranks_per_node.
int64_t group_ranks_per_node(CommGroup g, const ParallelConfig& p, int64_t gpus_per_node);
// The largest divisor of `ranks` that is at most `per_node` (and at least 1).
int64_t even_ranks_per_node(int64_t ranks, int64_t per_node);
int64_t group_ranks(CommGroup g, const ParallelConfig& p);

}  // namespace ridgeline
