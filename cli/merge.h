// `ridgeline merge`'s work (cmd_merge.cpp), callable without the command line: the shard files
// checked and combined into `format` on --out `out_path` (stdout when empty). Returns the exit
// status (1 when points failed); bad files are InputErrors naming the file and line.
#pragma once

#include <string>
#include <vector>

namespace ridgeline {

int merge_shards(const std::vector<std::string>& paths, const std::string& format,
                 const std::string& out_path);

}  // namespace ridgeline
