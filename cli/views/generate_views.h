// Views of a generate() prediction (predict --phase generate, model/generate_predict.h): the time
// to the first token (the prompt's prefill), per later token (a decode step at the mean cache
// length) and the whole call, with the memory of its last step. A table for people, JSON and CSV
// for tools, from the same numbers.
#pragma once

#include "model/generate_predict.h"

#include <ostream>

namespace ridgeline {

void print_generate_table(std::ostream& os, const GenerateSteps& g);
void print_generate_json(std::ostream& os, const GenerateSteps& g);
void print_generate_csv(std::ostream& os, const GenerateSteps& g);

}  // namespace ridgeline
