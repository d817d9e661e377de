// The "meta" part of the report: what the device says about itself (properties and
// cudaDeviceGetAttribute clocks), driver/runtime/cuBLASLt versions, nvidia-smi readings, UTC
// time, host name and the method paragraph. ClockLogger polls nvidia-smi from a background thread
// while the suite runs (every few seconds), tagging each reading with the benchmark then running,
// so clock throttling and power can be checked per point.
#pragma once

#include "bench.cuh"
#include "json.cuh"

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace ridgeline::gpubench {

DeviceInfo query_device(int device);  // throws CudaError
Json device_json(const DeviceInfo& d);
Json versions_json();

// The fields the brief asks for, as one CSV line (or the error text when nvidia-smi fails).
extern const char* const kSmiFields;
std::string nvidia_smi(const std::string& fields, const std::string& pci_bus_id);
std::string pci_bus_id(int device);

std::string utc_now();
std::string host_name();
const char* method_text();

class ClockLogger {
 public:
  ClockLogger(std::string pci_bus_id, double interval_s);
  ~ClockLogger();  // stops the thread
  ClockLogger(const ClockLogger&) = delete;
  ClockLogger& operator=(const ClockLogger&) = delete;
  void set_current(const std::string& bench);        // readings from now on are tagged with it
  Json take_readings_for(const std::string& bench);  // readings tagged with `bench` so far
  Json log() const;                                  // every reading: {t_s, bench, csv}

 private:
  struct Reading {
    double t_s;
    std::string bench, csv;
  };
  void loop();
  std::string bus_;
  double interval_s_;
  std::chrono::steady_clock::time_point t0_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::string current_;
  std::vector<Reading> readings_;
  std::thread thread_;
};

}  // namespace ridgeline::gpubench
