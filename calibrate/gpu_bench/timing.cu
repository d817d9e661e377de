// Batch timing with CUDA events and graph replay, and sample statistics; see timing.cuh.
#include "timing.cuh"

#include "cuda_util.cuh"

#include <algorithm>
#include <cmath>
#include <memory>

namespace ridgeline::gpubench {

namespace {

// Time of one call, estimated from a short eager run right after warm-up (host launch cost
// included, so it errs long and batches err short; batches are bounded below anyway).
double estimate_call_us(cudaStream_t s, const Call& call, int n) {
  Event a, b;
  a.record(s);
  for (int i = 0; i < n; ++i) call(s, i);
  b.record(s);
  return 1000.0 * elapsed_ms(a, b) / n;
}

int calls_per_batch(double call_us, const TimingPlan& p) {
  double want = std::ceil(p.target_batch_us / std::max(call_us, 0.05));
  int L = static_cast<int>(std::min<double>(want, p.max_batch));
  L = std::max({L, p.sets, 1});
  return static_cast<int>(round_up(static_cast<size_t>(L), static_cast<size_t>(p.sets)));
}

// Captures calls [0, L) into a graph. On failure, leaves the stream usable and returns false.
bool capture(cudaStream_t s, const Call& call, int L, std::unique_ptr<GraphExec>& exec,
             std::string& error) {
  CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  cudaGraph_t raw = nullptr;
  try {
    for (int i = 0; i < L; ++i) call(s, i);
  } catch (const CudaError& e) {
    cudaStreamEndCapture(s, &raw);  // ends the failed capture; the graph is invalid
    if (raw) cudaGraphDestroy(raw);
    cudaGetLastError();
    if (e.sticky()) throw;
    error = e.what();
    return false;
  }
  cudaError_t end = cudaStreamEndCapture(s, &raw);
  if (end != cudaSuccess) {
    cudaGetLastError();
    error = std::string("cudaStreamEndCapture: ") + cudaGetErrorString(end);
    return false;
  }
  Graph graph(raw);
  try {
    exec = std::make_unique<GraphExec>(graph.get());
  } catch (const CudaError& e) {
    if (e.sticky()) throw;
    error = e.what();
    return false;
  }
  return true;
}

}  // namespace

Timing time_calls(cudaStream_t s, const Call& call, const TimingPlan& p) {
  int warm = std::clamp(p.sets, 2, 8);
  for (int i = 0; i < warm; ++i) call(s, i);
  CK(cudaStreamSynchronize(s));
  double est = estimate_call_us(s, call, std::clamp(p.sets, 3, 16));

  Timing t;
  t.calls_per_sample = calls_per_batch(est, p);
  int L = t.calls_per_sample;
  int samples = std::max(p.min_samples, static_cast<int>(ceil_div(p.min_calls, L)));
  std::unique_ptr<GraphExec> exec;
  bool graph = p.graph && capture(s, call, L, exec, t.graph_error);
  t.method = graph ? "graph" : "eager";
  if (graph) {
    exec->upload(s);
    exec->launch(s);  // one untimed replay
    CK(cudaStreamSynchronize(s));
  }
  Event a, b;
  for (int r = 0; r < samples; ++r) {
    a.record(s);
    if (graph) {
      exec->launch(s);
    } else {
      for (int i = 0; i < L; ++i) call(s, i);
    }
    b.record(s);
    t.samples_us.push_back(1000.0 * elapsed_ms(a, b) / L);
  }
  return t;
}

std::vector<double> time_each(cudaStream_t s, int samples, double per_sample,
                              const std::function<void(cudaStream_t)>& body) {
  std::vector<double> out;
  Event a, b;
  for (int r = 0; r < samples; ++r) {
    a.record(s);
    body(s);
    b.record(s);
    out.push_back(1000.0 * elapsed_ms(a, b) / per_sample);
  }
  return out;
}

double percentile(std::vector<double> v, double q) {
  if (v.empty()) return std::nan("");
  std::sort(v.begin(), v.end());
  double pos = q * static_cast<double>(v.size() - 1);
  size_t lo = static_cast<size_t>(std::floor(pos));
  size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (pos - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

double median(std::vector<double> v) {
  return percentile(std::move(v), 0.5);
}

void put_samples(Json& out, const std::vector<double>& samples_us) {
  out["samples_us"] = Json::array_of(samples_us);
  out["median_us"] = median(samples_us);
  out["min_us"] =
      samples_us.empty() ? std::nan("") : *std::min_element(samples_us.begin(), samples_us.end());
  out["p10_us"] = percentile(samples_us, 0.1);
  out["p90_us"] = percentile(samples_us, 0.9);
}

void put_timing(Json& out, const Timing& t) {
  put_samples(out, t.samples_us);
  out["calls_per_sample"] = t.calls_per_sample;
  out["timing"] = t.method;
  if (!t.graph_error.empty()) out["graph_error"] = t.graph_error;
}

int sets_to_exceed_l2(size_t set_bytes, size_t l2_bytes, int cap) {
  size_t need = 3 * l2_bytes / std::max<size_t>(set_bytes, 1) + 1;
  return static_cast<int>(std::clamp<size_t>(need, 1, static_cast<size_t>(cap)));
}

}  // namespace ridgeline::gpubench
