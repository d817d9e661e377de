// ridgeline-gpu-bench: runs the CUDA microbenchmark suite and writes one JSON file.
//
//   ridgeline-gpu-bench --out measurements.json [--quick] [--only REGEX] [--device N]
//                       [--max-seconds S] [--list]
//
// Families register their points (bench.cuh); main selects them by name, runs each under
// try/catch (a failing CUDA or cuBLAS call is recorded in that point's "error" and the point
// skipped; a poisoned context is reset), prints one progress line per point, and rewrites the
// report after every point so a run cut short still leaves a valid file.
#include "bench.cuh"
#include "meta.cuh"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <regex>
#include <string>

using namespace ridgeline::gpubench;

namespace {

struct Options {
  std::string out;
  std::string only;
  bool quick = false;
  bool list = false;
  int device = 0;
  double max_seconds = 0;  // 0: no limit
};

const char* kUsage =
    "usage: ridgeline-gpu-bench --out FILE.json [--quick] [--only REGEX] [--device N]\n"
    "                           [--max-seconds S] [--list]\n"
    "  --out FILE       write the report here (rewritten after every benchmark)\n"
    "  --quick          fewer points and samples (under a minute on an H100)\n"
    "  --only REGEX     run only benchmarks whose name matches (ECMAScript, search)\n"
    "  --device N       CUDA device ordinal (default 0)\n"
    "  --max-seconds S  skip the benchmarks left once S seconds have passed (recorded as skipped)\n"
    "  --list           print the selected benchmark names and exit\n";

bool parse(int argc, char** argv, Options& o, std::string& err) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](const char* flag) -> const char* {
      if (i + 1 >= argc) {
        err = std::string(flag) + " needs a value";
        return nullptr;
      }
      return argv[++i];
    };
    const char* v = nullptr;
    if (a == "--quick") {
      o.quick = true;
    } else if (a == "--list") {
      o.list = true;
    } else if (a == "--out" || a == "--only" || a == "--device" || a == "--max-seconds") {
      if (!(v = value(a.c_str()))) return false;
      if (a == "--out") o.out = v;
      if (a == "--only") o.only = v;
      if (a == "--device") o.device = std::atoi(v);
      if (a == "--max-seconds") o.max_seconds = std::atof(v);
    } else if (a == "--help" || a == "-h") {
      err = "";
      return false;
    } else {
      err = "unknown argument: " + a;
      return false;
    }
  }
  if (o.out.empty() && !o.list) err = "--out is required";
  return err.empty();
}

BenchList select(const DeviceInfo& dev, const Options& o) {
  BenchList all;
  add_memory_benches(all, dev, o.quick);
  add_cache_benches(all, dev, o.quick);
  add_compute_benches(all, dev, o.quick);
  add_gemm_benches(all, dev, o.quick);
  add_launch_benches(all, dev, o.quick);
  add_kernel_benches(all, dev, o.quick);
  if (o.only.empty()) return all;
  std::regex re(o.only);  // throws std::regex_error on a bad pattern
  BenchList picked;
  for (Bench& b : all)
    if (std::regex_search(b.name, re)) picked.push_back(std::move(b));
  return picked;
}

bool write_report(const std::string& path, const Json& meta, const Json& benches) {
  Json doc = Json::object();
  doc["meta"] = meta;
  doc["benchmarks"] = benches;
  std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::trunc);
    if (!f) return false;
    f << doc.dump(1) << "\n";
    if (!f.flush()) return false;
  }
  return std::rename(tmp.c_str(), path.c_str()) == 0;
}

// One point: run it, catching what fails; returns false when it did not complete.
bool run_one(Context& ctx, const Bench& b, Json& entry) {
  try {
    b.run(ctx, entry);
    entry["status"] = "ok";
    if (entry.contains("op") && entry.contains("median_us")) {  // a `ridgeline op` record
      Json median = *entry.find("median_us");  // a copy: inserting may move the members
      entry["id"] = b.name;
      entry["measured_us"] = median;
    }
    return true;
  } catch (const Unsupported& e) {
    entry["status"] = "unsupported";
    entry["error"] = e.what();
  } catch (const CudaError& e) {
    entry["status"] = "error";
    entry["error"] = e.what();
  } catch (const std::exception& e) {
    entry["status"] = "error";
    entry["error"] = std::string("exception: ") + e.what();
  }
  entry["skipped"] = true;
  cudaError_t health = cudaDeviceSynchronize();
  if (health != cudaSuccess) {
    entry["device_reset"] = std::string("after ") + cudaGetErrorName(health);
    ctx.reset_device();
  }
  return false;
}

std::string headline(const Json& e) {
  char buf[160];
  std::string s;
  if (const Json* m = e.find("median_us"); m && m->is_number()) {
    std::snprintf(buf, sizeof buf, "median %.3f us", m->as_double());
    s += buf;
  }
  const char* keys[][2] = {{"tflops", "TFLOP/s"},
                           {"GBps", "GB/s"},
                           {"ns", "ns/load"},
                           {"bytes_per_clk_per_sm", "B/clk/SM"}};
  for (const auto& k : keys) {
    if (const Json* v = e.find(k[0]); v && v->is_number()) {
      std::snprintf(buf, sizeof buf, "  %.2f %s", v->as_double(), k[1]);
      s += buf;
    }
  }
  if (const Json* err = e.find("error")) s += "  SKIPPED: " + err->dump(-1);
  return s;
}

Json start_meta(int argc, char** argv, const Options& o) {
  Json meta = Json::object();
  meta["tool"] = "ridgeline-gpu-bench";
  meta["format_version"] = 1;
  Json args = Json::array();
  for (int i = 0; i < argc; ++i) args.push_back(Json(argv[i]));
  meta["argv"] = args;
  meta["quick"] = o.quick;
  meta["only"] = o.only;
  meta["utc_start"] = utc_now();
  meta["hostname"] = host_name();
  meta["complete"] = false;
  return meta;
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  std::string err;
  if (!parse(argc, argv, opt, err)) {
    std::cerr << (err.empty() ? "" : "ridgeline-gpu-bench: " + err + "\n") << kUsage;
    return err.empty() ? 0 : 2;
  }
  Json meta = start_meta(argc, argv, opt);
  Json benches = Json::array();
  DeviceInfo dev;
  BenchList list;
  try {
    dev = query_device(opt.device);
    list = select(dev, opt);
    meta["device"] = device_json(dev);
    meta["l2_cache_bytes"] = dev.l2_bytes;
    meta["versions"] = versions_json();
  } catch (const std::exception& e) {
    std::cerr << "ridgeline-gpu-bench: " << e.what() << "\n";
    if (opt.list || opt.out.empty()) return 1;
    meta["error"] = e.what();
    return write_report(opt.out, meta, benches) ? 1 : 3;
  }
  if (opt.list) {
    for (const Bench& b : list)
      std::printf("%-8s %-8s %s\n", b.family.c_str(), split_of(b.name), b.name.c_str());
    return 0;
  }
  std::string bus = pci_bus_id(dev.device);
  meta["nvidia_smi_query"] = kSmiFields;
  meta["nvidia_smi_start"] = nvidia_smi(kSmiFields, bus);
  meta["method"] = method_text();
  meta["benchmarks_selected"] = list.size();
  if (!write_report(opt.out, meta, benches)) {
    std::cerr << "ridgeline-gpu-bench: cannot write " << opt.out << "\n";
    return 3;
  }
  std::printf("%s, %d SMs, L2 %zu MiB: %zu benchmarks%s\n", dev.name.c_str(), dev.sm_count,
              dev.l2_bytes >> 20, list.size(), opt.quick ? " (quick)" : "");
  std::fflush(stdout);

  auto t_start = std::chrono::steady_clock::now();
  auto seconds = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
  };
  int failed = 0, out_of_time = 0;
  {
    Context ctx(dev, opt.quick);
    ClockLogger logger(bus, 2.0);
    for (size_t i = 0; i < list.size(); ++i) {
      const Bench& b = list[i];
      std::printf("[%3zu/%zu] %-44s ", i + 1, list.size(), b.name.c_str());
      std::fflush(stdout);
      Json entry = Json::object();
      entry["name"] = b.name;
      entry["family"] = b.family;
      entry["split"] = split_of(b.name);
      double t0 = seconds();
      if (opt.max_seconds > 0 && t0 > opt.max_seconds) {
        entry["status"] = "skipped";
        entry["skipped"] = true;
        entry["error"] = "time budget (--max-seconds) used up";
        ++out_of_time;
      } else {
        logger.set_current(b.name);
        if (!run_one(ctx, b, entry)) ++failed;
        logger.set_current("");
        entry["wall_s"] = seconds() - t0;
        Json smi = logger.take_readings_for(b.name);
        if (smi.size()) entry["smi_during"] = smi;
      }
      std::printf("%s  (%.2f s)\n", headline(entry).c_str(), seconds() - t0);
      std::fflush(stdout);
      benches.push_back(std::move(entry));
      write_report(opt.out, meta, benches);
    }
    meta["clock_log"] = logger.log();
  }
  meta["nvidia_smi_end"] = nvidia_smi(kSmiFields, bus);
  meta["utc_end"] = utc_now();
  meta["wall_s"] = seconds();
  meta["benchmarks_failed"] = failed;
  meta["benchmarks_out_of_time"] = out_of_time;
  meta["complete"] = out_of_time == 0;  // points left out for time: the run did not finish
  bool ok = write_report(opt.out, meta, benches);
  std::printf("%zu benchmarks, %d failed, %d left out for time, %.1f s; wrote %s\n", list.size(),
              failed, out_of_time, seconds(), opt.out.c_str());
  return ok ? 0 : 3;
}
