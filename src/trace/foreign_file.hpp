// Files people pass for a trace that are something else: a torch.save checkpoint, a Perfetto
// protobuf, an Nsight report, a saved web page. "not a JSON trace" tells them nothing; naming
// the file's kind and the way to record a Kineto trace instead does.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace whyslow {

struct FileStart {
  std::string_view head;  // the file's first bytes (after gunzip when `gzipped`)
  bool whole = false;     // head is the whole file
  bool gzipped = false;   // the file on disk is gzip (a .json.gz, or a checkpoint gzipped by hand)
  std::string_view path;  // as given: its extension names Nsight's reports, which no magic bytes identify here
};

// What the file is and how to get a trace instead ("this is a torch.save checkpoint … record …"),
// or nothing when the bytes match no kind known to be mistaken for a trace.
std::optional<std::string> name_foreign_file(const FileStart& start);

}  // namespace whyslow
