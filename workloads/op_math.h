// What an op must do, independent of any GPU: useful FLOPs (by kind of unit), special-function
// operations, and the bytes of its operands (each input read once, each output written once).
// These are the numerators of every roofline; model/ turns them into time.
#pragma once

#include "workloads/op.h"

namespace ridgeline {

struct OpWork {
  double matrix_flops = 0;   // multiply-accumulates x 2 that run on matrix units (GEMM, attention)
  double vector_flops = 0;   // elementwise arithmetic on CUDA cores
  double sfu_ops = 0;        // exp, rsqrt, tanh ... on special-function units
  double bytes_read = 0;     // unique input bytes
  double bytes_written = 0;  // unique output bytes
  double total_flops() const { return matrix_flops + vector_flops; }
  double unique_bytes() const { return bytes_read + bytes_written; }
};

OpWork op_work(const Op& op);

// Per-kind facts of elementwise ops: inputs read per output element, FP32 ops and special-
// function ops per element.
struct ElementwiseInfo {
  int inputs;
  double flops_per_element;
  double sfu_per_element;
  int outputs = 1;
};
ElementwiseInfo elementwise_info(ElementwiseKind k);

// Number of (query, key) pairs attention computes: q_len*kv_len, or the causal triangle
// (bottom-right aligned, so each query sees the keys up to its own position).
double attention_pairs(const AttentionOp& a);
// The mean number of keys a query's score row masks (transformers sets them to the dtype's min):
// the queries are the last q_len of `filled` key positions (a static cache's `keys` >= filled:
// its unfilled tail masked too); each sees every filled key, or with `causal` those at or before
// it, and with `window` > 0 only the last `window` of those.
double masked_keys_per_row(int64_t q_len, int64_t keys, int64_t filled, bool causal,
                           int64_t window);
// Bytes of a GEMM's output element: fp8 GEMMs write bf16.
double gemm_output_bytes(DType d);

// nccl-tests' bus-bandwidth factor (busbw = algbw x factor): all_reduce 2(n-1)/n; all_gather,
// reduce_scatter, all_to_all (n-1)/n; broadcast and send_recv 1 (0 for a group of one).
double collective_bus_factor(CollectiveKind kind, int ranks);
// Bytes one rank sends (and receives): op bytes x the bus factor.
double collective_wire_bytes(const CollectiveOp& c);

}  // namespace ridgeline
