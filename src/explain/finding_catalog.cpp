// The catalog of finding ids, expanded from finding_ids.def.
#include "explain/finding.hpp"

namespace whyslow {
namespace {

constexpr FindingInfo kCatalog[] = {
#define WHYSLOW_FINDING(id, severity, title, fires_when, evidence_keys) \
  {FindingId::id, #id, Severity::severity, title, fires_when, evidence_keys},
#include "explain/finding_ids.def"
#undef WHYSLOW_FINDING
};

// The catalog is indexed by the enum: the order of the two expansions must agree.
constexpr bool catalog_in_enum_order() {
  for (size_t i = 0; i < std::size(kCatalog); ++i)
    if (static_cast<size_t>(kCatalog[i].id) != i) return false;
  return true;
}
static_assert(catalog_in_enum_order());

}  // namespace

std::span<const FindingInfo> finding_catalog() { return kCatalog; }
const FindingInfo& info(FindingId id) { return kCatalog[static_cast<size_t>(id)]; }
std::string_view to_string(FindingId id) { return info(id).name; }

Finding make_finding(FindingId id) {
  Finding x;
  x.id = id;
  x.severity = info(id).default_severity;
  return x;
}

}  // namespace whyslow
