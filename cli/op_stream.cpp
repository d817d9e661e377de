// See op_stream.h: OpLineRunner's lines straight into OpJsonlPrinter.
#include "cli/op_stream.h"

#include "cli/op_runner.h"
#include "cli/views/op_jsonl.h"

namespace ridgeline {

OpStreamSummary stream_op_jsonl(std::istream& in, const std::string& label, const GpuSpec& gpu,
                                std::ostream& out) {
  OpLineRunner lines(in, label, gpu);
  OpJsonlPrinter printer(out);
  OpStreamSummary summary;
  while (lines.next()) {
    ++summary.ops;
    if (lines.fast()) {
      printer.print(lines.op().id, lines.op(), lines.cost(), lines.interval());
      continue;
    }
    printer.print(lines.result());
    if (!lines.result().error.empty()) summary.errors.push_back(lines.result().error);
  }
  printer.flush();
  return summary;
}

}  // namespace ridgeline
