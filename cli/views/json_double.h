// json_double_to_chars: a double as nlohmann's dump() prints it, byte for byte, about twice as
// fast. nlohmann's to_chars (Grisu2, detail/conversions/to_chars.hpp) with two changes that keep
// its digits: the integral digits come from std::to_chars at once (the digit loop can stop early
// there only when the fraction is within the rounding margin; then nlohmann's loop runs), and the
// 64x64-bit products use one 128-bit multiply (the same rounding: high half of p + 2^63), and
// normalizing shifts by the leading zeros at once.
#pragma once

namespace ridgeline {

// Writes finite `x` at `p` (at most 25 bytes: sign, 17 digits, '.', "e+308"); returns the end.
char* json_double_to_chars(char* p, double x);

}  // namespace ridgeline
