// A measured attention record must name the shape that ran. Its profiled kernels say which
// head_dim they were built for (FlashAttention-2's Flash_fwd_kernel_traits<kHeadDim, ...>,
// CUTLASS's AttentionKernel<..., kQueriesPerBlock, kKeysPerBlock, kMaxK, ...>); a record whose
// head_dim those kernels cannot have run is an input error, not a data point (the second H200
// kernel run's "head_dim 64" cases ran head_dim-128 kernels: scripts/relabel_hf_kernels_01b.py).
// Records measured since then also carry the tensor shapes SDPA was handed, checked likewise.
//
//   check_attention_kernels(rec, a);   // throws InputError at /records/i/kernels/j
#pragma once

#include "common/json_reader.h"
#include "workloads/op.h"

#include <optional>
#include <string>

namespace ridgeline {

// The head_dim a kernel name says it was built for, as the largest head_dim it takes and the
// smallest (FA2 instantiates head_dim rounded up to a multiple of 32; CUTLASS's kMaxK is the
// largest it takes, above the next smaller instantiation of 64, 128 or 65536); nullopt when the
// name says nothing of it (cuDNN's, ATen's).
struct KernelHeadDim {
  int max = 0, min = 0;  // runs head_dim in (min, max]
  std::string what;      // the part of the name that says so
};
std::optional<KernelHeadDim> kernel_head_dim(const std::string& kernel_name);

// Checks each name of the record's "kernels" (if any) against a.head_dim, and the shapes SDPA
// was handed ("ran_q_shape", "ran_kv_shape", when recorded) against the record's.
void check_attention_kernels(const nlohmann::json& record, const AttentionOp& a,
                             const JsonReader& rec);

}  // namespace ridgeline
