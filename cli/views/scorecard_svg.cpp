// SVG view of a validation scorecard (`ridgeline validate --plot FILE.svg`, and the README's
// plots from scripts/accuracy_plots.sh). Two panels side by side:
//   (a) predicted against measured time, log-log, with the y = x line and shaded +-10% and
//       +-25% bands: one dot per case coloured by family, and the plain datasheet roofline of the
//       same case as a small grey ring, so the gap between the two shows;
//   (b) the signed error (predicted - measured) / measured against measured time, with a zero
//       line and +-10% guides; errors beyond +-100% sit on the panel edge as triangles.
// The legend gives each family's count and MAPE from the scorecard. The file is self-contained
// (no scripts, no fonts, no CSS); hovering a dot shows its case. Nothing here is computed from
// the model: positions come from the scorecard's times, statistics from its FamilyScores.
#include "cli/views/scorecard_views.h"
#include "cli/views/views.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>
#include <set>
#include <sstream>

namespace ridgeline {

namespace {

constexpr double kWidth = 1160, kPanel = 440, kTop = 92, kLeftA = 92, kLeftB = 672, kRow = 18;
constexpr int kColumns = 3;
constexpr double kColumnWidth = (kLeftB + kPanel - kLeftA) / kColumns;
const char* const kPalette[] = {"#4e79a7", "#f28e2b", "#e15759", "#59a14f", "#b07aa1",
                                "#76b7b2", "#9c755f", "#ff9da7", "#bcbd22", "#17becf"};
const char* const kGrey = "#8c8c8c";
const char* const kBand10 = "#bdd5ec";
const char* const kBand25 = "#dfe9f5";

struct Frame {  // a panel's plot area, in pixels
  double x, y, w, h;
  double right() const { return x + w; }
  double bottom() const { return y + h; }
};

struct Decades {  // a log axis from 10^lo to 10^hi
  int lo = 0, hi = 1;
};

struct Palette {
  std::vector<std::string> families;  // the families cases belong to, in scorecard order
  std::map<std::string, std::string> colour;
};

double finite_or_zero(double x) {
  return std::isfinite(x) ? x : 0;
}

// Coordinates: one decimal, never NaN or inf.
std::string num(double x) {
  return fixed(finite_or_zero(x), 1);
}

std::string pct(double x) {
  return fixed(100 * finite_or_zero(x), 1) + "%";
}

std::string esc(const std::string& s) {
  std::string out;
  for (char ch : s) {
    if (ch == '&')
      out += "&amp;";
    else if (ch == '<')
      out += "&lt;";
    else if (ch == '>')
      out += "&gt;";
    else if (ch == '"')
      out += "&quot;";
    else if ((unsigned char)ch < 0x20)
      out += ' ';  // not allowed in XML 1.0
    else
      out += ch;
  }
  return out;
}

// (predicted - measured) / measured; an infinite one is far off the scale, a NaN one is zero.
double signed_error(const CaseResult& c) {
  double e = c.measured_us > 0 ? c.error() : 0;
  return std::isnan(e) ? 0 : std::clamp(e, -1e3, 1e3);
}

std::string time_label(double us) {
  return std::isfinite(us) ? human_us(us) : "n/a";
}

// The decades around every positive finite value, at least one, at most twelve.
Decades decades_of(const std::vector<double>& values) {
  double lo = HUGE_VAL, hi = 0;
  for (double v : values) {
    if (!(v > 0) || !std::isfinite(v)) continue;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  if (hi == 0) return {};
  Decades d{(int)std::floor(std::log10(lo) - 0.02), (int)std::ceil(std::log10(hi) + 0.02)};
  d.hi = std::max(d.hi, d.lo + 1);
  d.lo = std::max(d.lo, d.hi - 12);
  return d;
}

// Where v falls on the axis, 0 (10^lo) to 1 (10^hi); off-scale values sit on the edge.
double log_frac(double v, Decades d) {
  if (!(v > 0)) return 0;  // zero, negative or NaN: the low edge
  if (!std::isfinite(v)) return 1;
  return std::clamp((std::log10(v) - d.lo) / (d.hi - d.lo), 0.0, 1.0);
}

// "0.01", "1", "10,000"; beyond that range, 10 with a superscript exponent.
std::string decade_label(int e) {
  if (e < -3 || e > 6)
    return "10<tspan dy=\"-6\" font-size=\"8\">" + std::to_string(e) + "</tspan>";
  if (e < 0) return fixed(std::pow(10.0, e), -e);
  std::string s = "1";
  for (int digits_left = e; digits_left > 0; --digits_left) s += digits_left % 3 == 0 ? ",0" : "0";
  return s;
}

std::string line(double x1, double y1, double x2, double y2, const std::string& attrs) {
  return "<line x1=\"" + num(x1) + "\" y1=\"" + num(y1) + "\" x2=\"" + num(x2) + "\" y2=\"" +
         num(y2) + "\" " + attrs + "/>\n";
}

std::string text(double x, double y, const std::string& body, const std::string& attrs = "") {
  return "<text x=\"" + num(x) + "\" y=\"" + num(y) + "\"" + (attrs.empty() ? "" : " " + attrs) +
         ">" + body + "</text>\n";
}

std::string circle(double x, double y, double r, const std::string& attrs) {
  return "<circle cx=\"" + num(x) + "\" cy=\"" + num(y) + "\" r=\"" + num(r) + "\" " + attrs;
}

// A triangle centred on (x, y), pointing up or down.
std::string triangle(double x, double y, bool up, const std::string& attrs) {
  double s = up ? 1 : -1;
  return "<polygon points=\"" + num(x) + "," + num(y - 4.5 * s) + " " + num(x - 4.5) + "," +
         num(y + 3.5 * s) + " " + num(x + 4.5) + "," + num(y + 3.5 * s) + "\" " + attrs;
}

// Decade grid lines, labels and minor ticks of a log axis along the bottom or the left edge.
// Past seven decades the bottom axis labels every other decade, so labels keep apart.
void log_axis(std::ostream& os, const Frame& f, Decades d, bool vertical, const std::string& cls) {
  for (int e = d.lo; e <= d.hi; ++e) {
    bool labelled = vertical || d.hi - d.lo <= 7 || e % 2 == 0;
    for (int m = 1; m <= 9 && (e < d.hi || m == 1); ++m) {
      double t = log_frac(m * std::pow(10.0, e), d);
      double p = vertical ? f.bottom() - t * f.h : f.x + t * f.w;
      double tick = m == 1 ? 6 : 3;
      if (vertical) {
        if (m == 1) os << line(f.x, p, f.right(), p, "stroke=\"#e4e4e4\"");
        os << line(f.x - tick, p, f.x, p, "stroke=\"#333\"");
        if (m == 1) os << text(f.x - 9, p + 4, decade_label(e), cls + " text-anchor=\"end\"");
      } else {
        if (m == 1) os << line(p, f.y, p, f.bottom(), "stroke=\"#e4e4e4\"");
        os << line(p, f.bottom(), p, f.bottom() + tick, "stroke=\"#333\"");
        if (m == 1 && labelled)
          os << text(p, f.bottom() + 19, decade_label(e), cls + " text-anchor=\"middle\"");
      }
    }
  }
}

void axis_titles(std::ostream& os, const Frame& f, const std::string& x, const std::string& y) {
  os << text(f.x + f.w / 2, f.bottom() + 40, x, "text-anchor=\"middle\"");
  double cy = f.y + f.h / 2;
  os << text(
      f.x - 72, cy, y,
      "text-anchor=\"middle\" transform=\"rotate(-90 " + num(f.x - 72) + " " + num(cy) + ")\"");
}

// The band where predicted is within (1 - r) and (1 + r) of measured, cut to the square panel
// (both axes span the same decades, so the band runs along the diagonal).
std::string band(const Frame& f, Decades d, double r, const char* fill) {
  double a = std::log10(1 - r) / (d.hi - d.lo), b = std::log10(1 + r) / (d.hi - d.lo);
  double corners[][2] = {{0, 0}, {-a, 0}, {1, 1 + a}, {1, 1}, {1 - b, 1}, {0, b}};
  std::string pts;
  for (auto& c : corners) pts += num(f.x + c[0] * f.w) + "," + num(f.bottom() - c[1] * f.h) + " ";
  return "<polygon points=\"" + pts + "\" fill=\"" + fill + "\"/>\n";
}

std::string tooltip(const CaseResult& c) {
  return "<title>" + esc(c.id) + " (" + esc(c.family) + "): measured " + time_label(c.measured_us) +
         ", ridgeline " + time_label(c.predicted_us) + " (" + pct(signed_error(c)) + ", " +
         esc(c.bottleneck) + "), datasheet roofline " + time_label(c.roofline_us) + "</title>";
}

void parity_panel(std::ostream& os, const Scorecard& sc, const Palette& pal, const Frame& f) {
  std::vector<double> times;
  for (const auto& c : sc.cases)
    times.insert(times.end(), {c.measured_us, c.predicted_us, c.roofline_us});
  Decades d = decades_of(times);
  auto at = [&](double x, double y) {
    return std::pair{f.x + log_frac(x, d) * f.w, f.bottom() - log_frac(y, d) * f.h};
  };
  os << "<g class=\"panel-a\">\n";
  os << band(f, d, 0.25, kBand25) << band(f, d, 0.10, kBand10);
  log_axis(os, f, d, false, "class=\"decade-a\"");
  log_axis(os, f, d, true, "class=\"decade-a\"");
  os << line(f.x, f.bottom(), f.right(), f.y, "stroke=\"#555\" stroke-width=\"1\"");
  os << "<g fill=\"none\" stroke=\"" << kGrey << "\" stroke-width=\"0.9\">\n";
  for (const auto& c : sc.cases) {
    auto [x, y] = at(c.measured_us, c.roofline_us);
    os << circle(x, y, 2.4, "class=\"case-roofline\"/>\n");
  }
  os << "</g>\n<g stroke=\"#fff\" stroke-width=\"0.5\" fill-opacity=\"0.85\">\n";
  for (const auto& c : sc.cases) {
    auto [x, y] = at(c.measured_us, c.predicted_us);
    os << circle(x, y, 3.6, "class=\"case-ridgeline\" fill=\"" + pal.colour.at(c.family) + "\">")
       << tooltip(c) << "</circle>\n";
  }
  os << "</g>\n<rect class=\"frame-a\" x=\"" << num(f.x) << "\" y=\"" << num(f.y) << "\" width=\""
     << num(f.w) << "\" height=\"" << num(f.h) << "\" fill=\"none\" stroke=\"#333\"/>\n";
  axis_titles(os, f, "measured time (us)", "predicted time (us)");
  os << "</g>\n";
}

// The error axis spans +-25%, +-50% or +-100%, whichever first holds every case.
int error_limit_pct(const Scorecard& sc) {
  double worst = 0;
  for (const auto& c : sc.cases) worst = std::max(worst, std::fabs(signed_error(c)));
  return worst <= 0.25 ? 25 : worst <= 0.5 ? 50 : 100;
}

void percent_axis(std::ostream& os, const Frame& f, int lim) {
  int step = lim == 25 ? 5 : lim == 50 ? 10 : 25;
  for (int p = -lim; p <= lim; p += step) {
    double y = f.y + f.h * (lim - p) / (2.0 * lim);
    os << line(f.x, y, f.right(), y, "stroke=\"#e4e4e4\"");
    os << line(f.x - 6, y, f.x, y, "stroke=\"#333\"");
    std::string label = std::string(p > 0 ? "+" : "") + std::to_string(p) + "%";
    os << text(f.x - 9, y + 4, label, "class=\"tick-b\" text-anchor=\"end\"");
  }
}

void error_panel(std::ostream& os, const Scorecard& sc, const Palette& pal, const Frame& f) {
  std::vector<double> measured;
  for (const auto& c : sc.cases) measured.push_back(c.measured_us);
  Decades d = decades_of(measured);
  int lim = error_limit_pct(sc);
  auto y_of = [&](double p) {
    return f.y + f.h * (lim - std::clamp(p, -1.0 * lim, 1.0 * lim)) / (2.0 * lim);
  };
  os << "<g class=\"panel-b\">\n<rect x=\"" << num(f.x) << "\" y=\"" << num(y_of(10))
     << "\" width=\"" << num(f.w) << "\" height=\"" << num(y_of(-10) - y_of(10)) << "\" fill=\""
     << kBand10 << "\"/>\n";
  log_axis(os, f, d, false, "class=\"decade-b\"");
  percent_axis(os, f, lim);
  os << line(f.x, y_of(0), f.right(), y_of(0), "stroke=\"#555\"");
  for (int p : {-10, 10})
    os << line(f.x, y_of(p), f.right(), y_of(p), "stroke=\"#555\" stroke-dasharray=\"4 3\"");
  os << "<g stroke=\"#fff\" stroke-width=\"0.5\" fill-opacity=\"0.85\">\n";
  for (const auto& c : sc.cases) {
    double x = f.x + log_frac(c.measured_us, d) * f.w, p = 100 * signed_error(c);
    std::string fill = "fill=\"" + pal.colour.at(c.family) + "\"";
    if (std::fabs(p) > 100)
      os << triangle(x, p > 0 ? f.y + 5 : f.bottom() - 5, p > 0,
                     "class=\"case-error-clamped\" " + fill + " stroke=\"#000\">");
    else
      os << circle(x, y_of(p), 3.6, "class=\"case-error\" " + fill + ">");
    os << tooltip(c) << (std::fabs(p) > 100 ? "</polygon>\n" : "</circle>\n");
  }
  os << "</g>\n<rect class=\"frame-b\" x=\"" << num(f.x) << "\" y=\"" << num(f.y) << "\" width=\""
     << num(f.w) << "\" height=\"" << num(f.h) << "\" fill=\"none\" stroke=\"#333\"/>\n";
  axis_titles(os, f, "measured time (us)", "error, (predicted - measured) / measured");
  os << "</g>\n";
}

Palette palette_of(const Scorecard& sc) {
  Palette p;
  auto add = [&](const std::string& f) {
    if (p.colour.count(f)) return;
    p.colour[f] = kPalette[p.families.size() % std::size(kPalette)];
    p.families.push_back(f);
  };
  std::set<std::string> in_cases;
  for (const auto& c : sc.cases) in_cases.insert(c.family);
  for (const auto& f : sc.families)
    if (in_cases.count(f.family)) add(f.family);
  for (const auto& c : sc.cases) add(c.family);
  return p;
}

std::string family_entry(const Scorecard& sc, const std::string& family) {
  for (const auto& f : sc.families) {
    if (f.family != family) continue;
    return esc(family) + ": n=" + std::to_string(f.model.count) + ", MAPE " + pct(f.model.mape) +
           " (roofline " + pct(f.roofline.mape) + ")";
  }
  return esc(family);
}

// Legend entries in columns under the panels, then a line per total (memory-bound, all) and the
// note on clamped errors. Returns the y below the last line.
double legend(std::ostream& os, const Scorecard& sc, const Palette& pal, double top) {
  std::vector<std::pair<std::string, std::string>> entries;  // marker, label
  for (const auto& f : pal.families)
    entries.push_back(
        {circle(0, 0, 4, "fill=\"" + pal.colour.at(f) + "\"/>"), family_entry(sc, f)});
  entries.push_back({circle(0, 0, 2.6, "fill=\"none\" stroke=\"" + std::string(kGrey) + "\"/>"),
                     "datasheet roofline (same cases)"});
  entries.push_back(
      {"<rect x=\"-6\" y=\"-5\" width=\"12\" height=\"10\" fill=\"" + std::string(kBand10) + "\"/>",
       "within &#177;10%"});
  entries.push_back({"<rect x=\"-6\" y=\"-5\" width=\"12\" height=\"10\" fill=\"" +
                         std::string(kBand25) + "\" stroke=\"" + kBand10 + "\"/>",
                     "within &#177;25% (a)"});
  entries.push_back({triangle(0, 0, true, "fill=\"#999\" stroke=\"#000\"/>"),
                     "error beyond &#177;100%, on the edge (b)"});
  os << "<g class=\"legend\">\n";
  int rows = ((int)entries.size() + kColumns - 1) / kColumns;
  for (size_t i = 0; i < entries.size(); ++i) {
    double x = kLeftA + (i / rows) * kColumnWidth, y = top + (i % rows) * kRow;
    os << "<g transform=\"translate(" << num(x + 6) << " " << num(y - 4) << ")\">"
       << entries[i].first << "</g>\n"
       << text(x + 18, y, entries[i].second);
  }
  double y = top + rows * kRow + 8;
  for (const auto& f : sc.families) {
    if (pal.colour.count(f.family)) continue;
    os << text(kLeftA, y,
               "<tspan font-weight=\"bold\">" + esc(f.family) + "</tspan>: " +
                   std::to_string(f.model.count) + (f.model.count == 1 ? " case" : " cases") +
                   ", ridgeline MAPE " + pct(f.model.mape) + " (median " + pct(f.model.median) +
                   ", p90 " + pct(f.model.p90) + ", bias " +
                   fixed(finite_or_zero(f.model.bias), 2) + "); datasheet roofline MAPE " +
                   pct(f.roofline.mape) + " (median " + pct(f.roofline.median) + ")");
    y += kRow;
  }
  int clamped = 0;
  for (const auto& c : sc.cases) clamped += std::fabs(signed_error(c)) > 1;
  os << text(kLeftA, y,
             "(b) clamps errors beyond &#177;100% to the panel edge and draws them as triangles: " +
                 std::to_string(clamped) + (clamped == 1 ? " case." : " cases."),
             "fill=\"#444\"");
  os << "</g>\n";
  return y + kRow;
}

// "h100-sxm-ops.json + h100-sxm-norms.json" from "validate/data/h100-sxm-ops.json + ...".
std::string file_names(const std::string& dataset) {
  std::string out, rest = dataset;
  while (true) {
    size_t plus = rest.find(" + ");
    std::string one = rest.substr(0, plus);
    size_t slash = one.find_last_of('/');
    out += (out.empty() ? "" : " + ") + (slash == std::string::npos ? one : one.substr(slash + 1));
    if (plus == std::string::npos) break;
    rest = rest.substr(plus + 3);
  }
  return out.size() > 170 ? out.substr(0, 167) + "..." : out;
}

void title(std::ostream& os, const Scorecard& sc) {
  os << text(20, 28,
             "ridgeline against measured: " + esc(sc.gpu) + ", " + esc(sc.split) + " split, " +
                 std::to_string(sc.cases.size()) + (sc.cases.size() == 1 ? " case" : " cases"),
             "font-size=\"17\" font-weight=\"bold\"");
  os << text(20, 50, "data: " + esc(file_names(sc.dataset)), "fill=\"#444\"");
}

}  // namespace

void print_scorecard_svg(std::ostream& os, const Scorecard& sc) {
  std::ostringstream body;
  title(body, sc);
  double height = 110;
  if (sc.cases.empty()) {
    body << text(kWidth / 2, 88, "no cases", "font-size=\"15\" text-anchor=\"middle\"");
  } else {
    Palette pal = palette_of(sc);
    Frame a{kLeftA, kTop, kPanel, kPanel}, b{kLeftB, kTop, kPanel, kPanel};
    body << text(a.x, kTop - 12, "(a) predicted against measured time",
                 "font-size=\"13\" font-weight=\"bold\"");
    body << text(b.x, kTop - 12, "(b) error against measured time",
                 "font-size=\"13\" font-weight=\"bold\"");
    parity_panel(body, sc, pal, a);
    error_panel(body, sc, pal, b);
    height = legend(body, sc, pal, a.bottom() + 72) + 4;
  }
  os << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
     << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << num(kWidth) << "\" height=\""
     << num(height) << "\" viewBox=\"0 0 " << num(kWidth) << " " << num(height)
     << "\" font-family=\"sans-serif\" font-size=\"12\">\n"
     << "<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n"
     << body.str() << "</svg>\n";
}

}  // namespace ridgeline
