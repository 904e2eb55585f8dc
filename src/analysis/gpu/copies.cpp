// Copies by direction and host memory kind, from the names CUPTI gives them:
// "Memcpy HtoD (Pageable -> Device)", "Memcpy DtoD (Device -> Device)", …
#include "analysis/passes.hpp"

namespace whyslow {

CopyFacts copies(const Trace& t) {
  CopyFacts f;
  for (EventId e = 0; e < t.size(); ++e) {
    if (t.kind[e] != EventKind::Memcpy) continue;
    const std::string_view name = t.name_of(e);
    const CopyRow row{e, t.name[e], t.gpu_detail[t.detail[e]].bytes, t.dur_ns[e]};
    if (name.find("Pageable") != std::string_view::npos) f.pageable.push_back(row);
    if (name.find("DtoD") != std::string_view::npos) f.device_to_device.push_back(row);
    if (name.find("DtoH") != std::string_view::npos) f.device_to_host.push_back(row);
  }
  return f;
}

}  // namespace whyslow
