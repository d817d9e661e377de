// The `ridgeline calibrate fit` report (fit_report_view.cpp).
#pragma once

#include "calibrate/fit/profile.h"

#include <ostream>

namespace ridgeline {

void print_fit_report(std::ostream& os, const ProfileParts& parts);

}  // namespace ridgeline
