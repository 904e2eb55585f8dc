# Writes OUTPUT, a C++ file holding every file of ASSET_DIR as a raw string literal
# (report/html/assets.hpp), so the whyslow binary can write the HTML report with no files beside it.
# Run at build time: `cmake -DASSET_DIR=… -DOUTPUT=… -P embed_html_assets.cmake`.
file(GLOB assets "${ASSET_DIR}/*")
list(SORT assets)
set(table "")
foreach(path IN LISTS assets)
  file(READ "${path}" text)
  if(text MATCHES "\\)whyslow_asset\"")
    message(FATAL_ERROR "${path} contains the raw string delimiter )whyslow_asset\"")
  endif()
  get_filename_component(name "${path}" NAME)
  string(APPEND table "    {\"${name}\", R\"whyslow_asset(${text})whyslow_asset\"},\n")
endforeach()
file(WRITE "${OUTPUT}.new"
"// Generated from src/report/html/page/ by cmake/embed_html_assets.cmake: edit those files, not this one.
#include \"report/html/assets.hpp\"

namespace whyslow::report {

const HtmlAsset kHtmlAssets[] = {
${table}};
const size_t kHtmlAssetCount = sizeof kHtmlAssets / sizeof kHtmlAssets[0];

}  // namespace whyslow::report
")
# Only touch OUTPUT when it changed, so an unchanged page does not recompile anything.
file(COPY_FILE "${OUTPUT}.new" "${OUTPUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUTPUT}.new")
