// The scorecard of the published training runs (training_runs.h): each modelled row predicted
// with predict_parallel on its cluster, the error of its iteration time, and the MAPE per
// category -- "all", "scope/h100-h200-b200" (the GPUs issue 12's target names: H100, H200 and B200
// rows, without GB200/GB300/B300), "source/<source_id>", "gpu/<preset>",
// "family/<gpt3|llama2|llama3|...>", "precision/<bf16|fp8>", and
// "recipe/<delayed|current|blockwise|mxfp8>" for the FP8 rows --
// for the held-out rows and the fit rows apart. Rows ridgeline cannot model are counted by reason
// (the loader's skips, plus strategies check_parallel_config refuses); a row predicted not to fit
// in memory is still scored (the run did fit: that is the memory model's error) and counted.
#pragma once

#include "validate/scorecard.h"
#include "validate/training_runs.h"

#include <map>
#include <string>
#include <vector>

namespace ridgeline {

struct TrainingCategory {
  std::string name;
  ErrorStats holdout, fit;
};

struct TrainingScorecard {
  std::string dataset;
  int64_t rows = 0;
  std::vector<TrainingCategory> categories;        // "all" first, then sources, GPUs, families
  std::vector<CaseResult> cases;                   // family = the model family, bottleneck = gpu
  std::map<std::string, int64_t> skipped;          // by reason
  std::vector<std::string> predicted_not_fitting;  // ids
};

TrainingScorecard score_training_runs(const TrainingRunSet& set);

// The categories' held-out MAPE as a baseline records them: {"all": 0.12, "gpu/h100-sxm": ...}.
std::map<std::string, double> training_holdout_mape(const TrainingScorecard& sc);

}  // namespace ridgeline
