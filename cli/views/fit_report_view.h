// The `ridgeline calibrate fit` report (fit_report_view.cpp).
#pragma once

#include "calibrate/fit/profile.h"

#include <ostream>

namespace ridgeline {

void print_fit_report(std::ostream& os, const ProfileParts& parts);
// Every measured kernel's error before and after the fit (both splits), as JSON.
void print_fit_cases_json(std::ostream& os, const Scorecard& before, const Scorecard& after);

}  // namespace ridgeline
