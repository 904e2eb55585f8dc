#include "report/text/severity_marker.hpp"

namespace whyslow {

std::string_view severity_marker(Severity s) {
  switch (s) {
    case Severity::Critical: return "[!!]";
    case Severity::Warning: return "[!] ";
    case Severity::Info: return "[i] ";
  }
  return "[?] ";
}

}  // namespace whyslow
