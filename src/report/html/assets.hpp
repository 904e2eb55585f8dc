// The HTML report's page, style sheet and scripts (the files in src/report/html/page/), compiled in by
// cmake/embed_html_assets.cmake so the whyslow binary writes self-contained pages on its own.
#pragma once

#include <cstddef>
#include <string_view>

namespace whyslow::report {

struct HtmlAsset {
  std::string_view name;  // file name: "page.html", "timeline.js", …
  std::string_view text;
};
extern const HtmlAsset kHtmlAssets[];
extern const size_t kHtmlAssetCount;

// The asset's text; throws std::logic_error when the build embedded no such file.
std::string_view html_asset(std::string_view name);

}  // namespace whyslow::report
