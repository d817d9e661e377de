// The scorecard's SVG plot (cli/views/scorecard_svg.cpp): one ridgeline dot, one roofline ring
// and one error marker per case, every marker inside its panel's axes, well-formed XML with the
// text escaped, and no NaN or inf whatever the times, down to an empty scorecard.
#include "cli/views/scorecard_views.h"
#include "test_helpers.h"
#include "validate/dataset.h"
#include "validate/scorecard.h"

#include <cmath>
#include <limits>
#include <regex>
#include <sstream>

using namespace ridgeline;

namespace {

std::string svg_of(const Scorecard& sc) {
  std::ostringstream os;
  print_scorecard_svg(os, sc);
  return os.str();
}

int count(const std::string& s, const std::string& needle) {
  int n = 0;
  for (size_t p = s.find(needle); p != std::string::npos; p = s.find(needle, p + 1)) ++n;
  return n;
}

// Every start tag has its end tag, in order; "<?xml ...?>" and self-closed tags stand alone.
bool tags_balanced(const std::string& s) {
  std::vector<std::string> open;
  for (size_t p = s.find('<'); p != std::string::npos; p = s.find('<', p + 1)) {
    size_t end = s.find('>', p);
    if (end == std::string::npos) return false;
    std::string tag = s.substr(p + 1, end - p - 1);
    if (tag.empty() || tag[0] == '?' || tag.back() == '/') continue;
    if (tag[0] == '/') {
      if (open.empty() || open.back() != tag.substr(1)) return false;
      open.pop_back();
    } else {
      open.push_back(tag.substr(0, tag.find(' ')));
    }
  }
  return open.empty();
}

// The attribute `name` of every element whose class is `cls`.
std::vector<double> attr_of(const std::string& s, const std::string& cls, const std::string& name) {
  std::vector<double> out;
  std::regex value(" " + name + "=\"([-0-9.]+)\"");
  for (size_t p = s.find("class=\"" + cls + "\""); p != std::string::npos;
       p = s.find("class=\"" + cls + "\"", p + 1)) {
    size_t start = s.rfind('<', p), end = s.find('>', p);
    std::smatch m;
    std::string tag = s.substr(start, end - start);
    if (std::regex_search(tag, m, value)) out.push_back(std::stod(m[1]));
  }
  return out;
}

struct Box {
  double x0, y0, x1, y1;
};

Box frame(const std::string& s, const std::string& cls) {
  double x = attr_of(s, cls, "x").at(0), y = attr_of(s, cls, "y").at(0);
  return {x, y, x + attr_of(s, cls, "width").at(0), y + attr_of(s, cls, "height").at(0)};
}

void require_inside(const std::string& s, const std::string& cls, const Box& b, size_t n) {
  auto xs = attr_of(s, cls, "cx"), ys = attr_of(s, cls, "cy");
  REQUIRE(xs.size() == n);
  REQUIRE(ys.size() == n);
  for (size_t i = 0; i < n; ++i) {
    CHECK(xs[i] >= b.x0);
    CHECK(xs[i] <= b.x1);
    CHECK(ys[i] >= b.y0);
    CHECK(ys[i] <= b.y1);
  }
}

bool has_nan_or_inf(std::string s) {
  for (auto& ch : s) ch = (char)std::tolower((unsigned char)ch);
  return s.find("nan") != std::string::npos || s.find("inf") != std::string::npos;
}

// A scorecard of the given cases, with a FamilyScore per family and "all", as score() makes.
Scorecard scorecard_of(std::vector<CaseResult> cases) {
  Scorecard sc{"test-gpu", "dir/a.json + b.json", "holdout", {}, std::move(cases)};
  std::map<std::string, std::vector<double>> model, roof;
  for (const auto& c : sc.cases) {
    for (const std::string& f : {c.family, std::string("all")}) {
      model[f].push_back(c.error());
      roof[f].push_back(c.roofline_error());
    }
  }
  for (const auto& [f, e] : model) sc.families.push_back({f, error_stats(e), error_stats(roof[f])});
  return sc;
}

}  // namespace

TEST_CASE(
    "svg: one ridgeline dot, one roofline ring and one error marker per case, inside the axes",
    "[validate][svg]") {
  std::string dir = std::string(RIDGELINE_SOURCE_DIR) + "/validate/data/";
  Dataset d =
      load_datasets({dir + "h100-sxm-ops-2026-11-29.json", dir + "h100-sxm-norms-2026-11-29.json"});
  Scorecard sc = score(d, test::h100(), "holdout");
  REQUIRE(sc.cases.size() > 50);
  std::string s = svg_of(sc);
  size_t n = sc.cases.size();
  require_inside(s, "case-ridgeline", frame(s, "frame-a"), n);
  require_inside(s, "case-roofline", frame(s, "frame-a"), n);
  CHECK(count(s, "class=\"case-error\"") + count(s, "class=\"case-error-clamped\"") == (int)n);
  auto errors_x = attr_of(s, "case-error", "cx");
  Box b = frame(s, "frame-b");
  for (double x : errors_x) CHECK((x >= b.x0 && x <= b.x1));
  CHECK(tags_balanced(s));
  CHECK_FALSE(has_nan_or_inf(s));
  CHECK(s.find("h100-sxm-ops-2026-11-29.json + h100-sxm-norms-2026-11-29.json") !=
        std::string::npos);
  CHECK(s.find("datasheet roofline") != std::string::npos);
  CHECK(s.find("gemm: n=") != std::string::npos);
}

TEST_CASE("svg: an empty scorecard is still a valid SVG that says so", "[validate][svg]") {
  std::string s = svg_of(scorecard_of({}));
  CHECK(s.rfind("<?xml", 0) == 0);
  CHECK(s.find("no cases") != std::string::npos);
  CHECK(count(s, "<svg ") == 1);
  CHECK(tags_balanced(s));
  CHECK_FALSE(has_nan_or_inf(s));
}

TEST_CASE("svg: one case, or equal times, still spans a decade on both axes", "[validate][svg]") {
  for (double t : {100.0, 37.0}) {
    std::string s = svg_of(scorecard_of({{"one", "gemm", "holdout", t, t, t, "hbm"}}));
    CHECK(count(s, "class=\"decade-a\"") >= 4);  // two decades on each of two axes
    CHECK(count(s, "class=\"decade-b\"") >= 2);
    require_inside(s, "case-ridgeline", frame(s, "frame-a"), 1);
    require_inside(s, "case-error", frame(s, "frame-b"), 1);
    CHECK(tags_balanced(s));
  }
}

TEST_CASE("svg: no NaN or inf from zero, infinite or missing times", "[validate][svg]") {
  double inf = std::numeric_limits<double>::infinity();
  double nan = std::numeric_limits<double>::quiet_NaN();
  std::string s = svg_of(scorecard_of({{"zero-predicted", "gemm", "holdout", 10, 0, 0, "hbm"},
                                       {"endless-predicted", "gemm", "holdout", 10, inf, 5, "hbm"},
                                       {"undefined-roofline", "norm", "holdout", 3, 4, nan, "hbm"},
                                       {"zero-measured", "norm", "holdout", 0, 4, 2, "hbm"}}));
  CHECK_FALSE(has_nan_or_inf(s));
  CHECK(tags_balanced(s));
  CHECK(count(s, "class=\"case-ridgeline\"") == 4);
  CHECK(count(s, "class=\"case-roofline\"") == 4);
}

TEST_CASE("svg: errors beyond 100% sit on the panel edge as triangles, and a note says so",
          "[validate][svg]") {
  Scorecard sc = scorecard_of({{"fine", "gemm", "holdout", 100, 105, 60, "compute"},
                               {"far-over", "gemm", "holdout", 100, 350, 60, "compute"}});
  std::string s = svg_of(sc);
  CHECK(count(s, "class=\"case-error\"") == 1);
  CHECK(count(s, "class=\"case-error-clamped\"") == 1);
  CHECK(s.find("draws them as triangles: 1 case.") != std::string::npos);
  require_inside(s, "case-error", frame(s, "frame-b"), 1);
  CHECK(s.find(">+100%</text>") != std::string::npos);  // the axis stops at +-100%
}

TEST_CASE("svg: ids, families and file names are escaped", "[validate][svg]") {
  Scorecard sc = scorecard_of({{"a<b & \"c\"", "x<y", "holdout", 10, 11, 8, "hbm"}});
  sc.dataset = "dir/<odd>&.json";
  std::string s = svg_of(sc);
  CHECK(tags_balanced(s));
  CHECK(s.find("a&lt;b &amp; &quot;c&quot;") != std::string::npos);
  CHECK(s.find("&lt;odd&gt;&amp;.json") != std::string::npos);
  CHECK(s.find("x<y") == std::string::npos);
}
