// Op descriptors: plain data for one kernel (kind, shape, dtype), as Timeloop describes a
// problem by its dimensions. FLOPs and operand sizes follow from the shape (op_math.h); what a
// kernel costs is model/'s business, not this file's.
#pragma once

#include "common/name_table.h"

#include <cstdint>
#include <optional>
#include <string>
#include <variant>

namespace ridgeline {

// Storage/compute precision of an op. fp8 is e4m3 storage (a GEMM's output is bf16); tf32 is
// fp32 storage computed on TF32 tensor cores; fp32 is plain FP32 on CUDA cores. nvfp4 ("Fp4") is
// NVIDIA's 4-bit format: E2M1 values with an E4M3 scale a block of 16 (4.5 bits an element), a
// GEMM's operands only (both A and B, on FP4 tensor cores; the output is bf16).
enum class DType { Fp32, Tf32, Bf16, Fp16, Fp8, Fp4 };
// Bits an NVFP4 element takes: 4-bit E2M1 values and one 8-bit E4M3 scale a block of 16 (the
// per-tensor fp32 scale is negligible).
constexpr double kNvfp4BitsPerElement = 4.5;
const char* dtype_name(DType d);
std::optional<DType> parse_dtype(const std::string& name);
double dtype_bytes(DType d);  // bytes per stored element

// The rows of a routed grouped GEMM (workloads/moe_routing.h): each of `experts` experts takes
// Binomial(tokens, p) of the routed tokens, so its row tiles are the expectation of
// ceil(rows / tile) over that draw (uneven loads fill more tiles than even ones), not ceil(m /
// tile) for every group. experts 0: not routed, every group has m rows.
struct GemmRouting {
  int64_t experts = 0;
  double tokens = 0, p = 0;
  bool operator==(const GemmRouting&) const = default;
};

struct GemmOp {  // C[batch, m, n] = A[batch, m, k] * B[batch, n, k]^T
  int64_t m = 0, n = 0, k = 0, batch = 1;
  DType dtype = DType::Bf16;
  // Weight-only quantization: B is stored in this many bits and dequantized in the kernel
  // (0: B is stored in dtype, like A).
  double weight_bits = 0;  // weight-only quantized B: bits a weight (MXFP4: 4.25); 0: dtype
  // A grouped GEMM (an MoE layer's experts in one kernel: torch._grouped_mm, a fused-MoE
  // kernel): this many weight matrices B[n, k], each against its own m rows of A. It may be
  // fractional (the expected number of experts that receive tokens). 0: an ordinary GEMM
  // (batched when batch > 1).
  double groups = 0;
  // A is a view into wider rows (e.g. softmax probabilities sliced from a wider tensor): its
  // row pitch in elements, which sets A's alignment. 0: A's rows are k elements long.
  int64_t a_row_pitch = 0;
  GemmRouting routed;  // a grouped GEMM whose rows are routed tokens (default: even groups)
  bool operator==(const GemmOp&) const = default;
  // The independent problems the kernel runs: groups for a grouped GEMM, else batch.
  double problems() const { return groups > 0 ? groups : (double)batch; }
};

// The attention kernels PyTorch's scaled_dot_product_attention can run: cuDNN's fused kernel,
// FlashAttention-2 (pytorch_flash), FlashAttention-3 (Hopper only), CUTLASS memory-efficient
// attention, and the math fallback (bmm, softmax, bmm as separate kernels). Unset on an op: the
// one SDPA picks on the GPU for the dtype (model/attention_impl.h).
// FlashMla: DeepSeek's FlashMLA, the absorbed MLA decode over the latent cache
// (AttentionOp::v_in_k) that serving engines run on Hopper and Blackwell; chosen for such ops,
// refused for others.
enum class AttentionImpl { Cudnn, Flash2, Flash3, Efficient, Math, FlashMla };

struct AttentionOp {  // fused attention (one kernel but for math), GQA when kv_heads < heads
  int64_t batch = 1, heads = 0, kv_heads = 0, head_dim = 0, q_len = 0, kv_len = 0;
  bool causal = false;        // bottom-right aligned mask when q_len < kv_len
  DType dtype = DType::Bf16;  // Q, O and the math
  // K and V as stored, when not in `dtype` (an fp8 KV cache read by a bf16 kernel, which
  // dequantizes K/V blocks as it loads them).
  std::optional<DType> kv_dtype;
  bool backward = false;  // the backward kernel (dQ, dK, dV from dO)
  // MLA (mla_config.h): V narrower than Q and K (0: head_dim), and, in the absorbed decode
  // (FlashMLA), V read from the same cached latent as K, so K/V bytes are one K's.
  int64_t v_head_dim = 0;
  bool v_in_k = false;
  std::optional<AttentionImpl> impl{};  // unset: what SDPA picks on the GPU (attention_impl.h)
  // An additive [q_len, kv_len] bias read by the kernel (transformers' paged|sdpa passes one
  // to SDPA for a packed batch): flash kernels take none, cuDNN's masked variant runs slower.
  bool additive_mask = false;
  DType kv_storage() const { return kv_dtype.value_or(dtype); }
  int64_t v_dim() const { return v_head_dim > 0 ? v_head_dim : head_dim; }
};

// AdamW is the fused optimizer update: reads param, grad, m, v; writes param, m, v.
// Cat: torch.cat, its inputs copied into one output (transformers' DynamicCache concatenating the
// whole KV cache every step): a vectorized copy, or with strided inputs ATen's element by element
// CatArrayBatchedCopy.
// Relu2: squared ReLU, relu(x)^2 (Nemotron's MLP activation); last, so the other values stay.
enum class ElementwiseKind { Copy, Add, Mul, MulScalar, Gelu, Silu, SiluMul, AdamW, Cat, Relu2 };
// How torch.optim.AdamW runs its step (AdamW kind only): fused (_fused_adamw_: one pass, ATen's
// multi_tensor_apply), foreach (the _foreach_* ops: eight multi-tensor passes) or for-loop (eight
// kernels per parameter tensor).
enum class AdamwImpl { Fused, Foreach, ForLoop };
inline constexpr int kCalibratedViewDims = 3;
inline constexpr int kMaxViewDims = 25;  // ATen's MAX_DIMS

struct ElementwiseOp {
  ElementwiseKind kind = ElementwiseKind::Copy;
  int64_t numel = 0;
  DType dtype = DType::Bf16;
  // Operands are strided views or broadcasts (e.g. RoPE on a transposed q), so the kernel
  // takes the generic indexing path instead of the vectorized one.
  bool strided = false;
  // A cast (copy kind only): the output is stored in this dtype, e.g. an fp8 KV cache written
  // from bf16 keys or dequantized back to bf16.
  std::optional<DType> out_dtype;
  AdamwImpl adamw = AdamwImpl::Fused;  // AdamW kind: the implementation
  int64_t tensors = 1;                 // AdamW kind: parameter tensors the step walks
  // Each input element feeds this many output elements (a broadcast input, as repeat_kv's
  // expand of K and V to every query head): the input is read once for that many written.
  int64_t input_reuse = 1;
  // Strided only: the dims ATen's TensorIterator keeps after coalescing the operands' layouts
  // (1 to 25). Each dim adds index arithmetic per element; 3 is RoPE's transposed [T, h, d] view,
  // the layout the generic path's rate (model/vector/strided_elements_per_clk) is calibrated on.
  int view_dims = kCalibratedViewDims;
};

// How a full reduction is launched (ATen's setReduceConfig): blocks of threads_per_block threads;
// one block while each thread would take fewer than max_values_per_thread values, else the input
// is split over more blocks, each thread taking at least min_values_per_thread. The runtime
// profile says it ("launch/reduction"); 0 means not set, which the cost model refuses (a bug).
struct ReduceLaunch {
  double threads_per_block = 0, min_values_per_thread = 0, max_values_per_thread = 0;
  bool operator==(const ReduceLaunch&) const = default;
};

enum class ReduceKind { Sum, Max, Mean };
struct ReduceOp {  // a full reduction of numel elements to one
  ReduceKind kind = ReduceKind::Sum;
  int64_t numel = 0;
  DType dtype = DType::Bf16;
  ReduceLaunch launch;
};

// The backward kinds read the input and the output gradient, write the input gradient.
enum class RowOpKind {
  RmsNorm,
  LayerNorm,
  Softmax,
  RmsNormBackward,
  LayerNormBackward,
  SoftmaxBackward
};
// Single pass: the row is read once into registers (Triton, serving engines). PyTorch: ATen's
// row kernels (F.rms_norm runs vectorized_layer_norm_kernel), which walk a row serially with one
// block and reach a lower share of bandwidth.
enum class RowImpl { SinglePass, PyTorch };
// How ATen's row kernels (RowImpl::PyTorch) are launched: a block per row, blocks_per_sm of them
// resident on an SM at a time. The runtime profile says it ("launch/row_kernels"); 0 means not
// set, which the cost model refuses for an ATen row kernel (a bug).
struct RowLaunch {
  double blocks_per_sm = 0;
  bool operator==(const RowLaunch&) const = default;
};

struct RowOp {  // an op applied independently to each of `rows` rows of `cols` elements
  RowOpKind kind = RowOpKind::RmsNorm;
  int64_t rows = 0, cols = 0;
  DType dtype = DType::Bf16;
  RowImpl impl = RowImpl::SinglePass;
  RowLaunch launch;
  // Softmax only: the mean fraction of a row's values that a mask set to the dtype's min (or
  // -inf), such as attention scores under a causal or window mask; ATen's kernels pay for each
  // (model/aten_row_cost.cpp). 0 to 1.
  double masked_fraction = 0;
};

// A collective over a group of GPUs (NCCL), on the communication stream. `bytes` follows
// nccl-tests' size column: all_reduce = the buffer; all_gather = the total OUTPUT (per-rank
// count x ranks); reduce_scatter = the total INPUT; all_to_all = one rank's whole send buffer;
// broadcast = the buffer; send_recv = the bytes one rank sends. `ranks_per_node`: members of the
// group inside one node, so the group spans ranks / ranks_per_node nodes (0: as many as fit, the
// cluster's GPUs per node or fewer). Its cost needs a cluster (model/collective_cost.h).
enum class CollectiveKind { AllReduce, AllGather, ReduceScatter, AllToAll, Broadcast, SendRecv };
struct CollectiveOp {
  CollectiveKind kind = CollectiveKind::AllReduce;
  double bytes = 0;
  int ranks = 0;
  int ranks_per_node = 0;
  DType dtype = DType::Bf16;
  bool operator==(const CollectiveOp&) const = default;
};

using OpShape = std::variant<GemmOp, AttentionOp, ElementwiseOp, ReduceOp, RowOp, CollectiveOp>;

struct Op {
  std::string id;
  OpShape shape;
  // The inputs were left in L2 by the previous kernel (memory-bound ops only); by default an
  // op's inputs come from device memory, as in the `ridgeline op` contract.
  bool warm_l2 = false;
  // With warm_l2: the bytes L2 holds between this kernel's launches, when more than the kernel's
  // own (a benchmark rotating its buffers, other live tensors); 0 means just the kernel's.
  double l2_working_set_bytes = 0;
};

const char* op_family(
    const Op& op);  // "gemm", "attention", "elementwise", "reduce", "rmsnorm", ..., "collective"
const char* elementwise_kind_name(ElementwiseKind k);
const char* reduce_kind_name(ReduceKind k);
const char* row_op_kind_name(RowOpKind k);
const char* collective_kind_name(CollectiveKind k);
// The implementation names of `ridgeline op`'s "impl" (attention: cudnn flash2 flash3 efficient
// math; norms and softmax: aten triton; elementwise: vectorized generic).
const char* attention_impl_name(AttentionImpl i);
const char* row_impl_name(RowImpl i);
const char* elementwise_impl_name(const ElementwiseOp& e);  // AdamW's, else the indexing path

// The name tables behind the functions above, for parsing.
const NameTable<DType>& dtype_names();
const NameTable<ElementwiseKind>& elementwise_kinds();
const NameTable<ReduceKind>& reduce_kinds();
const NameTable<RowOpKind>& row_op_kinds();
const NameTable<AttentionImpl>& attention_impls();
const NameTable<RowImpl>& row_impls();      // "aten" (PyTorch), "triton" (SinglePass)
const NameTable<AdamwImpl>& adamw_impls();  // "fused", "foreach", "for-loop"
// "all_reduce", "all_gather", "reduce_scatter", "all_to_all", "broadcast", "send_recv"
const NameTable<CollectiveKind>& collective_kinds();

}  // namespace ridgeline
