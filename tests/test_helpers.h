// Shared helpers for the unit tests: a preset GPU by value (tests may edit its plain struct to
// isolate one rule), ops built in one line, and a check that an InputError names what it should.
#pragma once

#include "common/errors.h"
#include "hardware/gpu_load.h"
#include "model/op_cost.h"
#include "workloads/builder_ops.h"
#include "workloads/op.h"
#include "workloads/runtime_profile.h"

#include <catch2/catch.hpp>

#include <string>

namespace ridgeline::test {

inline const GpuSpec& h100() {
  static const GpuSpec g = load_gpu("h100-sxm");
  return g;
}

inline Op gemm(int64_t m, int64_t n, int64_t k, DType d = DType::Bf16, int64_t batch = 1) {
  return Op{"gemm", gemm_op(m, n, k, d, batch).shape, false};
}

inline Op attention(int64_t batch, int64_t heads, int64_t kv_heads, int64_t q, int64_t kv,
                    bool causal, int64_t head_dim = 128) {
  AttentionOp a;
  a.batch = batch;
  a.heads = heads;
  a.kv_heads = kv_heads;
  a.head_dim = head_dim;
  a.q_len = q;
  a.kv_len = kv;
  a.causal = causal;
  return Op{"attn", a, false};
}

inline Op elementwise(ElementwiseKind k, int64_t numel, bool warm = false, DType d = DType::Bf16) {
  return Op{"ew", ElementwiseOp{k, numel, d, false, {}}, warm};
}

inline Op row_op(RowOpKind k, int64_t rows, int64_t cols) {
  return Op{"row",
            RowOp{k, rows, cols, DType::Bf16, RowImpl::SinglePass, default_runtime().launch.rows},
            false};
}

// Runs f, which must throw InputError whose message contains every one of `parts`.
template <class F>
void require_input_error(F&& f, std::initializer_list<std::string> parts) {
  try {
    f();
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    std::string msg = e.what();
    INFO("message: " << msg);
    for (const auto& p : parts) CHECK(msg.find(p) != std::string::npos);
  }
}

}  // namespace ridgeline::test
