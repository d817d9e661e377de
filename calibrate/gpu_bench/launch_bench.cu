// Launch family: what it costs to start a kernel, for an empty kernel and for a tiny one that
// reads and writes 4 KiB (one block of 256 threads, 16 bytes each):
//   back_to_back  L launches on one stream between two events: per-launch device-side span
//                 (host-bound when the kernels are short), plus the host's issue time per launch
//   round_trip    launch then cudaStreamSynchronize, timed on the host (steady_clock)
//   graph_N       a CUDA graph of N such kernels (stream capture), replayed: replay time / N
// Every launch is checked (cudaGetLastError right after it), as everywhere in the suite.
#include "bench.cuh"

#include <chrono>

namespace ridgeline::gpubench {

namespace {

__global__ void empty_kernel() {}

__global__ void tiny_rw(const uint4* __restrict__ in, uint4* __restrict__ out) {
  uint4 v = in[threadIdx.x];
  v.x += 1;
  out[threadIdx.x] = v;
}

struct Kernel {
  bool tiny;
  const uint4* in;
  uint4* out;
  void launch(cudaStream_t s) const {
    if (tiny) {
      tiny_rw<<<1, 256, 0, s>>>(in, out);
    } else {
      empty_kernel<<<1, 32, 0, s>>>();
    }
    CK_LAUNCH();
  }
};

double host_us_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
}

void back_to_back(Context& ctx, Json& out, const Kernel& k) {
  cudaStream_t s = ctx.stream();
  const int L = 1000;
  for (int i = 0; i < 200; ++i) k.launch(s);
  CK(cudaStreamSynchronize(s));
  std::vector<double> device_us, host_us;
  Event a, b;
  for (int r = 0; r < ctx.samples(); ++r) {
    auto t0 = std::chrono::steady_clock::now();
    a.record(s);
    for (int i = 0; i < L; ++i) k.launch(s);
    b.record(s);
    host_us.push_back(host_us_since(t0) / L);
    device_us.push_back(1000.0 * elapsed_ms(a, b) / L);
  }
  out["launches_per_sample"] = L;
  put_samples(out, device_us);
  out["host_issue_samples_us"] = Json::array_of(host_us);
  out["host_issue_median_us"] = median(host_us);
}

void round_trip(Context& ctx, Json& out, const Kernel& k) {
  cudaStream_t s = ctx.stream();
  const int L = 200;
  for (int i = 0; i < 50; ++i) {
    k.launch(s);
    CK(cudaStreamSynchronize(s));
  }
  std::vector<double> samples;
  for (int r = 0; r < ctx.samples(); ++r) {
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < L; ++i) {
      k.launch(s);
      CK(cudaStreamSynchronize(s));
    }
    samples.push_back(host_us_since(t0) / L);
  }
  out["round_trips_per_sample"] = L;
  out["clock"] = "host steady_clock";
  put_samples(out, samples);
}

void graph_replay(Context& ctx, Json& out, const Kernel& k, int nodes) {
  cudaStream_t s = ctx.stream();
  CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  cudaGraph_t raw = nullptr;
  try {
    for (int i = 0; i < nodes; ++i) k.launch(s);
  } catch (...) {
    cudaStreamEndCapture(s, &raw);
    if (raw) cudaGraphDestroy(raw);
    throw;
  }
  CK(cudaStreamEndCapture(s, &raw));
  Graph graph(raw);
  GraphExec exec(graph.get());
  exec.upload(s);
  for (int i = 0; i < 3; ++i) exec.launch(s);
  CK(cudaStreamSynchronize(s));
  std::vector<double> replay =
      time_each(s, ctx.samples(), 1.0, [&](cudaStream_t st) { exec.launch(st); });
  std::vector<double> per_kernel;
  for (double r : replay) per_kernel.push_back(r / nodes);
  out["graph_nodes"] = nodes;
  put_samples(out, per_kernel);
  out["replay_samples_us"] = Json::array_of(replay);
  out["replay_median_us"] = median(replay);
}

void run_launch(Context& ctx, Json& out, bool tiny, const std::string& mode, int nodes) {
  DeviceBuffer in(4096), outb(4096);
  if (tiny) fill_random_words(in.as<void>(), 4096, 5, ctx.stream());
  Kernel k{tiny, in.as<uint4>(), outb.as<uint4>()};
  out["kernel"] = tiny ? "tiny_rw_4KiB" : "empty";
  out["mode"] = mode;
  if (mode == "back_to_back") back_to_back(ctx, out, k);
  if (mode == "round_trip") round_trip(ctx, out, k);
  if (mode == "graph") graph_replay(ctx, out, k, nodes);
}

}  // namespace

void add_launch_benches(BenchList& list, const DeviceInfo&, bool) {
  for (bool tiny : {false, true}) {
    std::string base = std::string("launch/") + (tiny ? "tiny_rw" : "empty") + "/";
    list.push_back({base + "back_to_back", "launch",
                    [tiny](Context& c, Json& o) { run_launch(c, o, tiny, "back_to_back", 0); }});
    list.push_back({base + "round_trip", "launch",
                    [tiny](Context& c, Json& o) { run_launch(c, o, tiny, "round_trip", 0); }});
    for (int nodes : {100, 1000})
      list.push_back(
          {base + "graph_" + std::to_string(nodes), "launch",
           [tiny, nodes](Context& c, Json& o) { run_launch(c, o, tiny, "graph", nodes); }});
  }
}

}  // namespace ridgeline::gpubench
