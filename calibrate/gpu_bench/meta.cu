// Device description, versions, nvidia-smi readings and the method paragraph; see meta.cuh.
#include "meta.cuh"

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <ctime>

namespace ridgeline::gpubench {

const char* const kSmiFields =
    "name,driver_version,clocks.sm,clocks.mem,clocks.max.sm,power.draw,power.limit,"
    "temperature.gpu";

namespace {

int attr(cudaDeviceAttr a, int device) {
  int v = 0;
  CK(cudaDeviceGetAttribute(&v, a, device));
  return v;
}

// Runs a shell command; returns its output (trailing newline removed) and exit status.
std::string run_command(const std::string& cmd, int& status) {
  status = -1;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return "popen failed";
  std::string out;
  std::array<char, 512> buf{};
  while (fgets(buf.data(), static_cast<int>(buf.size()), p)) out += buf.data();
  int rc = pclose(p);
  status = rc == -1 ? -1 : (WIFEXITED(rc) ? WEXITSTATUS(rc) : -1);
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}

}  // namespace

DeviceInfo query_device(int device) {
  DeviceInfo d;
  d.device = device;
  CK(cudaSetDevice(device));
  cudaDeviceProp p{};
  CK(cudaGetDeviceProperties(&p, device));
  d.name = p.name;
  d.cc_major = p.major;
  d.cc_minor = p.minor;
  d.sm_count = p.multiProcessorCount;
  d.l2_bytes = static_cast<size_t>(p.l2CacheSize);
  d.total_mem_bytes = p.totalGlobalMem;
  d.sm_clock_kHz = attr(cudaDevAttrClockRate, device);
  d.mem_clock_kHz = attr(cudaDevAttrMemoryClockRate, device);
  d.bus_width_bits = attr(cudaDevAttrGlobalMemoryBusWidth, device);
  d.max_threads_per_sm = attr(cudaDevAttrMaxThreadsPerMultiProcessor, device);
  d.smem_per_sm = attr(cudaDevAttrMaxSharedMemoryPerMultiprocessor, device);
  d.smem_per_block_optin = attr(cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
  return d;
}

Json device_json(const DeviceInfo& d) {
  Json o = Json::object();
  o["name"] = d.name;
  o["compute_capability"] = std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor);
  o["sm_count"] = d.sm_count;
  o["l2_bytes"] = d.l2_bytes;
  o["memory_bytes"] = d.total_mem_bytes;
  o["sm_clock_kHz_attr"] = d.sm_clock_kHz;
  o["mem_clock_kHz_attr"] = d.mem_clock_kHz;
  o["bus_width_bits"] = d.bus_width_bits;
  // DDR: two transfers per memory clock (what the attributes imply; HBM3's real rate may differ).
  o["hbm_GBps_from_attrs"] = 2.0 * d.mem_clock_kHz * 1e3 * d.bus_width_bits / 8 / 1e9;
  o["max_threads_per_sm"] = d.max_threads_per_sm;
  o["smem_per_sm_bytes"] = d.smem_per_sm;
  o["smem_per_block_optin_bytes"] = d.smem_per_block_optin;
  o["regs_per_sm"] = attr(cudaDevAttrMaxRegistersPerMultiprocessor, d.device);
  o["max_persisting_l2_bytes"] = attr(cudaDevAttrMaxPersistingL2CacheSize, d.device);
  o["ecc_enabled"] = attr(cudaDevAttrEccEnabled, d.device) != 0;
  o["pci_bus_id"] = pci_bus_id(d.device);
  size_t free_b = 0, total = 0;
  CK(cudaMemGetInfo(&free_b, &total));
  o["memory_free_bytes_at_start"] = free_b;
  return o;
}

Json versions_json() {
  Json o = Json::object();
  int driver = 0, runtime = 0;
  CK(cudaDriverGetVersion(&driver));
  CK(cudaRuntimeGetVersion(&runtime));
  o["cuda_driver_version"] = driver;
  o["cuda_runtime_version"] = runtime;
  o["cublasLt_version"] = static_cast<long long>(cublasLtGetVersion());
  return o;
}

std::string pci_bus_id(int device) {
  char buf[32] = {};
  CK(cudaDeviceGetPCIBusId(buf, sizeof buf, device));
  return buf;
}

std::string nvidia_smi(const std::string& fields, const std::string& bus) {
  int status = 0;
  std::string base = "nvidia-smi --query-gpu=" + fields + " --format=csv,noheader";
  std::string out = run_command(base + " --id=" + bus + " 2>&1", status);
  if (status != 0) out = run_command(base + " 2>&1", status);  // e.g. an nvidia-smi without --id
  if (status != 0) return "nvidia-smi failed (status " + std::to_string(status) + "): " + out;
  return out;
}

std::string utc_now() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string host_name() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "unknown";
  return buf;
}

const char* method_text() {
  return "Each point is a kernel or library call timed with CUDA events on one non-blocking stream "
         "after warm-up (eager calls that also load modules and pick cuBLASLt algorithms). Inputs "
         "are random (a counter hash, never zeros). Unless a point says otherwise, its calls "
         "rotate "
         "over enough independent input/output sets that the sets together exceed 3x L2, so no "
         "call finds its operands in L2 (working-set sweeps and latency chases reuse one buffer on "
         "purpose); a batch of L calls (L a multiple of the set count, sized to a few ms) is "
         "captured into a CUDA graph and replayed, each replay giving one sample = replay time / L "
         "(timing 'graph'; 'eager' when capture failed or for long kernels launched one by one). "
         "samples_us holds every sample (at least 10 per point, and at least 20 calls in all); "
         "median_us is their median and derived figures (GBps in 1e9 bytes/s, tflops in 1e12 "
         "FLOP/s, cycles) use the median. GEMMs go through cuBLASLt with a 32 MiB workspace and "
         "the "
         "heuristic's first candidate that runs (normally its first; algo.heuristic_rank says), "
         "whose configuration (algorithm, tile, stages, split-K, cluster shape) is recorded. "
         "Clocks are never changed: the SM clock "
         "attribute is recorded, some kernels measure the clock they ran at (clock64 over time), "
         "and nvidia-smi is read at start, at end and every few seconds during the run (smi_during "
         "per point). Each point's split is fit or holdout by FNV-1a 64 of its name (holdout when "
         "hash % 10 < 3). A failed call is recorded in the point's error field and the point "
         "skipped; the rest still run.";
}

ClockLogger::ClockLogger(std::string bus, double interval_s)
    : bus_(std::move(bus)), interval_s_(interval_s), t0_(std::chrono::steady_clock::now()) {
  thread_ = std::thread([this] { loop(); });
}

ClockLogger::~ClockLogger() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void ClockLogger::set_current(const std::string& bench) {
  std::lock_guard<std::mutex> lock(mu_);
  current_ = bench;
}

void ClockLogger::loop() {
  const std::string fields = "clocks.sm,clocks.mem,power.draw,temperature.gpu";
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      auto wait = std::chrono::duration<double>(interval_s_);
      if (cv_.wait_for(lock, wait, [this] { return stop_; })) return;
    }
    std::string csv = nvidia_smi(fields, bus_);
    double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
    std::lock_guard<std::mutex> lock(mu_);
    readings_.push_back({t, current_, csv});
  }
}

Json ClockLogger::take_readings_for(const std::string& bench) {
  std::lock_guard<std::mutex> lock(mu_);
  Json a = Json::array();
  for (const Reading& r : readings_)
    if (r.bench == bench) a.push_back(Json(r.csv));
  return a;
}

Json ClockLogger::log() const {
  std::lock_guard<std::mutex> lock(mu_);
  Json a = Json::array();
  for (const Reading& r : readings_) {
    Json o = Json::object();
    o["t_s"] = r.t_s;
    o["bench"] = r.bench;
    o["csv"] = r.csv;
    a.push_back(std::move(o));
  }
  return a;
}

}  // namespace ridgeline::gpubench
