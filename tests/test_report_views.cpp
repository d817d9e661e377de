// Rules of the report and monitoring views: the HTML page cannot be broken out of by a name in
// the data (a "</script>" inside a model name stays data), and the Prometheus text escapes
// label values, computes MFU as FLOPs over step time over the peak, and names the job only when
// one is given.
#include "cli/report/chart_assets.h"
#include "cli/views/prometheus_view.h"
#include "cli/views/report_html.h"

#include <catch2/catch.hpp>

#include <sstream>

using namespace ridgeline;

namespace {

nlohmann::json step_doc(const std::string& model) {
  return {{"inputs", {{"gpu", "h100-sxm"}, {"model", model}, {"phase", "decode"}, {"batch", 8}}},
          {"total_us", 2000.0},
          {"tokens_per_s", 4000.0},
          {"flops", 1e12},
          {"layers", {{{"section", "decoder_block"}, {"layer", 0}, {"time_us", 50.0}}}}};
}

size_t count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

// The value of the sample whose line starts with `series` (-1 when there is none).
double sample(const std::string& text, const std::string& series) {
  size_t at = text.find("\n" + series + " ");
  return at == std::string::npos ? -1 : std::stod(text.substr(at + series.size() + 2));
}

}  // namespace

TEST_CASE("a </script> in the run's data cannot close the page's data element", "[report]") {
  if (!charts_built()) return;  // built without npm: print_report_html refuses (cli.report)
  std::ostringstream plain, hostile;
  print_report_html(plain, {"predict", "t", "c", step_doc("llama"), nullptr, nullptr});
  print_report_html(
      hostile, {"predict", "t", "c", step_doc("x</script><script>alert(1)"), nullptr, nullptr});
  CHECK(count(hostile.str(), "</script>") == count(plain.str(), "</script>"));
  CHECK(hostile.str().find("x<\\/script><script>alert(1)") != std::string::npos);
}

TEST_CASE("Prometheus label values escape quotes and backslashes", "[report]") {
  std::ostringstream os;
  print_expected_prometheus(os, {step_doc("a\"b\\c"), 0, ""});
  CHECK(os.str().find("model=\"a\\\"b\\\\c\"") != std::string::npos);
}

TEST_CASE("expected MFU is FLOPs over step time over the peak, no peak, no MFU", "[report]") {
  std::ostringstream with_peak, without;
  print_expected_prometheus(with_peak, {step_doc("m"), 1e15, "job-a"});  // 1e12 / 2e-3 / 1e15
  print_expected_prometheus(without, {step_doc("m"), 0, ""});
  CHECK(sample(with_peak.str(),
               "ridgeline_expected_mfu_ratio{gpu=\"h100-sxm\",model=\"m\","
               "phase=\"decode\",batch=\"8\",job=\"job-a\"}") == Approx(0.5));
  CHECK(without.str().find("mfu") == std::string::npos);
  CHECK(without.str().find("job=") == std::string::npos);
}

TEST_CASE("measured tokens/s are the step's tokens over the measured span", "[report]") {
  std::ostringstream os;
  print_measured_prometheus(os, {step_doc("m"), 0, ""},
                            {4000.0, 3000.0, 2500.0, {}});  // twice the expected time
  const std::string labels = "{gpu=\"h100-sxm\",model=\"m\",phase=\"decode\",batch=\"8\"}";
  CHECK(sample(os.str(), "ridgeline_measured_tokens_per_second" + labels) == Approx(2000));
  CHECK(sample(os.str(), "ridgeline_measured_step_seconds" + labels) == Approx(0.004));
  CHECK(sample(os.str(), "ridgeline_expected_step_seconds" + labels) == Approx(0.002));
  CHECK(sample(os.str(), "ridgeline_measured_kernel_seconds" + labels) == Approx(0.003));
  CHECK(sample(os.str(), "ridgeline_expected_kernel_seconds" + labels) == Approx(0.0025));
}
