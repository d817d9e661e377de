// The page of `ridgeline report`: a head with the inlined style, one <script> per chart library,
// the run's data as a JSON script element (with "</" escaped so no string in it can close the
// element), and the page script that draws the charts.
#include "cli/views/report_html.h"

#include "cli/report/chart_assets.h"
#include "common/errors.h"
#include "hardware/derived.h"

namespace ridgeline {

namespace {

// Text for inside an HTML element (the title, the command line).
std::string html_text(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else if (c == '&')
      out += "&amp;";
    else
      out += c;
  }
  return out;
}

// JSON inside <script type="application/json">: "</" becomes "<\/" (the same string to JSON).
std::string script_json(const nlohmann::json& j) {
  std::string text = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    out += text[i];
    if (text[i] == '<' && i + 1 < text.size() && text[i + 1] == '/') out += '\\';
  }
  return out;
}

}  // namespace

nlohmann::json roofs_json(const GpuSpec& gpu) {
  nlohmann::json j;
  j["gpu"] = gpu.name;
  j["hbm_GBps"] = gpu.memory.hbm.bandwidth_GBps.value;
  j["l2_GBps"] = gpu.memory.l2.bandwidth_GBps.value;
  j["peak_tflops"] = nlohmann::json::object();
  for (MathUnit u : kAllMathUnits)
    if (peak_tflops(gpu, u) > 0) j["peak_tflops"][math_unit_key(u)] = peak_tflops(gpu, u);
  return j;
}

void print_report_html(std::ostream& os, const HtmlReport& r) {
  if (!charts_built())
    throw InputError(
        "report: this ridgeline was built without charts (npm was not found when it was "
        "configured); install npm and rebuild to get ridgeline report");
  const ChartAssets& a = chart_assets();
  nlohmann::json data = {{"kind", r.kind}, {"title", r.title}, {"command", r.command},
                         {"run", r.run},   {"roofs", r.roofs}, {"accuracy", r.accuracy}};
  os << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>"
     << html_text(r.title) << "</title>\n<style>\n"
     << a.page_css << "</style>\n<script>\n"
     << "window.onerror = function (m, src, line) { var e = document.getElementById('errors');"
     << " if (e) { e.textContent += m + ' (line ' + line + ')\\n'; e.hidden = false; } };\n"
     << "</script>\n";
  for (std::string_view lib : {a.vega, a.vega_lite, a.vega_embed})
    os << "<script>" << lib << "\n</script>\n";
  os << "</head>\n<body>\n<h1>" << html_text(r.title) << "</h1>\n<p class=\"command\"><code>"
     << html_text(r.command) << "</code></p>\n"
     << "<pre id=\"errors\" hidden></pre>\n<main id=\"report\"></main>\n"
     << "<script id=\"ridgeline-data\" type=\"application/json\">" << script_json(data)
     << "</script>\n<script>\n"
     << a.page_js << "\n</script>\n</body>\n</html>\n";
}

}  // namespace ridgeline
