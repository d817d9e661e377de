// The report of `ridgeline calibrate fit`: scores before and after on both splits, each fitted
// parameter beside its previous value, the eager launch fit, the hardware figures the
// microbenchmarks measured (beside the description's value they replace), and cross-checks of
// measured quantities the model takes from a fit or the datasheet instead.
#include "cli/views/fit_report_view.h"

#include "cli/views/views.h"

#include <nlohmann/json.hpp>

#include <iomanip>

namespace ridgeline {

namespace {

void print_scores(std::ostream& os, const char* what, const FitScore& b, const FitScore& a) {
  os << what << "fit split    " << b.fit_cases << " cases: MAPE " << fixed(100 * b.fit_mape, 1)
     << "% -> " << fixed(100 * a.fit_mape, 1) << "%\n";
  os << what << "held out     " << b.holdout_cases << " cases: MAPE "
     << fixed(100 * b.holdout_mape, 1) << "% -> " << fixed(100 * a.holdout_mape, 1)
     << "% (never fitted)\n";
}

// Three significant figures or so, whatever the magnitude.
std::string figure(double v) {
  return fixed(v, v >= 100 ? 0 : v >= 10 ? 1 : 3);
}

}  // namespace

void print_fit_report(std::ostream& os, const ProfileParts& parts) {
  const FitResult& r = parts.fit;
  print_scores(os, "", r.before, r.after);
  os << r.iterations
     << " Levenberg-Marquardt iterations\n\nparameter                                  previous    "
        "  fitted\n";
  for (const auto& p : r.params) {
    os << "  " << std::left << std::setw(40) << p.path << std::right << std::setw(10)
       << fixed(p.previous, 3) << std::setw(12) << fixed(p.value, 3)
       << (p.at_bound        ? "   (at bound)"
           : p.unconstrained ? "   (no data: kept)"
                             : "")
       << "\n";
  }
  if (parts.eager) {
    const LaunchFit& e = *parts.eager;
    os << "  " << std::left << std::setw(40) << "launch/python_eager_us" << std::right
       << std::setw(10) << fixed(e.previous_us, 3) << std::setw(12) << fixed(e.value_us, 3)
       << (e.at_bound ? "   (at bound)" : "") << "\n\neager whole-model runs\n";
    print_scores(os, "  ", e.before, e.after);
  }
  if (!parts.families.empty()) {
    os << "\nheld-out error per family          cases      before       after\n";
    for (const auto& f : parts.families) {
      os << "  " << std::left << std::setw(30) << f.family << std::right << std::setw(8) << f.cases
         << std::setw(11) << fixed(100 * f.before_mape, 1) << "%" << std::setw(11)
         << fixed(100 * f.after_mape, 1) << "%\n";
    }
    os << "furthest off after the fit (held out):\n";
    for (const auto& w : parts.worst) {
      os << "  " << std::left << std::setw(46) << w.id << std::right << " measured "
         << std::setw(10) << human_us(w.measured_us) << "  fitted " << std::setw(10)
         << human_us(w.predicted_us) << "  " << (w.error() >= 0 ? "+" : "")
         << fixed(100 * w.error(), 1) << "%\n";
    }
  }
  if (!parts.figures.empty()) {
    os << "\nmeasured hardware figures (applied before the fit; the profile keeps them)\n";
    for (const auto& f : parts.figures) {
      os << "  " << std::left << std::setw(34) << f.path << std::right << std::setw(10)
         << figure(f.previous) << " -> " << std::left << std::setw(10) << figure(f.value)
         << f.benchmark << "\n";
    }
  }
  if (!parts.checks.empty()) {
    os << "\ncross-checks: measured by the suite, beside the value the model uses\n";
    for (const auto& c : parts.checks) {
      os << "  " << std::left << std::setw(36) << c.what << std::right << std::setw(9)
         << figure(c.measured) << "  vs " << std::left << std::setw(9) << figure(c.model) << " "
         << c.unit << ": " << c.model_is << "\n";
    }
  }
}

void print_fit_cases_json(std::ostream& os, const Scorecard& before, const Scorecard& after) {
  nlohmann::ordered_json cases = nlohmann::ordered_json::array();
  for (size_t i = 0; i < after.cases.size() && i < before.cases.size(); ++i) {
    const CaseResult& b = before.cases[i];
    const CaseResult& a = after.cases[i];
    cases.push_back({{"id", a.id},
                     {"family", a.family},
                     {"split", a.split},
                     {"measured_us", a.measured_us},
                     {"before_us", b.predicted_us},
                     {"after_us", a.predicted_us},
                     {"before_error", b.error()},
                     {"after_error", a.error()}});
  }
  nlohmann::ordered_json doc = {{"gpu", after.gpu}, {"data", after.dataset}, {"cases", cases}};
  os << doc.dump(1) << "\n";
}

}  // namespace ridgeline
