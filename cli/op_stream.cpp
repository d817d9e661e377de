// See op_stream.h: OpLineRunner's lines straight into OpJsonlPrinter.
#include "cli/op_stream.h"

#include "cli/op_runner.h"
#include "cli/views/op_jsonl.h"

namespace ridgeline {

void print_op_lines(OpLineRunner& lines, OpJsonlPrinter& printer, OpStreamSummary& summary) {
  while (lines.next()) {
    ++summary.ops;
    if (lines.fast()) {
      printer.print(lines.op().id, lines.op(), lines.cost(), lines.interval());
      continue;
    }
    printer.print(lines.result());
    if (!lines.result().error.empty()) summary.errors.push_back(lines.result().error);
  }
}

OpStreamSummary stream_op_jsonl(std::istream& in, const std::string& label, const GpuSpec& gpu,
                                std::ostream& out, int jobs) {
  if (jobs > 1) return stream_op_jsonl_jobs(in, label, gpu, out, jobs);
  OpLineRunner lines(in, label, gpu);
  OpJsonlPrinter printer(out);
  OpStreamSummary summary;
  print_op_lines(lines, printer, summary);
  printer.flush();
  return summary;
}

}  // namespace ridgeline
