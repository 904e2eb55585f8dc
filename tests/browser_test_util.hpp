// Headless Chromium for the HTML report's tests: open a page (its DOM after the scripts ran and
// its console lines), read a <body data-*> attribute the page publishes, and run a test's own
// script on a page and read back the JSON it logs. Tests call REQUIRE_CHROMIUM() first: without
// a browser they skip (scripts/setup.sh installs one; CI has it).
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "loader_test_util.hpp"

namespace whyslow::testing {

inline std::string chromium() {
  for (const char* name : {"chromium", "chromium-browser", "google-chrome"}) {
    const std::string probe = std::string("command -v ") + name + " >/dev/null 2>&1";
    if (std::system(probe.c_str()) == 0) return name;
  }
  return "";
}

#define REQUIRE_CHROMIUM()                      \
  if (::whyslow::testing::chromium().empty()) \
  GTEST_SKIP() << "no chromium: scripts/setup.sh installs it (CI runs this test)"

struct BrowserRun {
  std::string dom;                   // --dump-dom
  std::vector<std::string> console;  // the page's console lines
};

// Headless Chromium on a page (with an optional #fragment); its own profile directory, so that
// tests running in parallel do not share one.
inline BrowserRun open_in_chromium(const TempDir& dir, const std::string& page, const std::string& mode,
                                   const std::string& fragment = "") {
  static int run = 0;
  const std::string tag = std::to_string(run++);
  const std::string out = dir.path("out" + tag), err = dir.path("err" + tag);
  const std::string cmd = "timeout 60 " + chromium() + " --headless --disable-gpu --no-sandbox --hide-scrollbars" +
                          " --user-data-dir='" + dir.path("profile" + tag) + "' --enable-logging=stderr --v=0 " +
                          mode + " 'file://" + page + fragment + "' >'" + out + "' 2>'" + err + "'";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  BrowserRun r;
  r.dom = read_file(out);
  std::istringstream lines(read_file(err));
  for (std::string line; std::getline(lines, line);)
    if (line.find(":CONSOLE") != std::string::npos) r.console.push_back(line);
  return r;
}

inline std::string body_attribute(const std::string& dom, const std::string& name) {
  std::smatch m;
  const std::regex re("<body[^>]*\\s" + name + "=\"([^\"]*)\"");
  return std::regex_search(dom, m, re) ? m[1].str() : "(absent)";
}

// `script` (JavaScript) run on `page` after the page has drawn, in a browser window of `window`
// ("1280,800") opened on `fragment`; returns the JSON it logs with
// console.log("whyslow-test: " + JSON.stringify(...)), and fails the test on any other console line
// than the page's "ready" line (an error in the page or in the script).
inline std::string page_script_result(const TempDir& dir, const std::string& page, const std::string& script,
                                      const std::string& fragment = "", const std::string& window = "1280,800") {
  static int run = 0;
  std::string html = read_file(page);
  html.insert(html.rfind("</body>"), "<script>\nsetTimeout(() => {\n" + script + "\n}, 0);\n</script>\n");
  const std::string path = dir.write("scripted" + std::to_string(run++) + ".html", html);
  const BrowserRun r = open_in_chromium(dir, path, "--window-size=" + window + " --virtual-time-budget=3000 --dump-dom", fragment);
  std::string result;
  for (const std::string& line : r.console) {
    const size_t a = line.find("\"whyslow-test: "), b = line.rfind("\", source:");
    if (a != std::string::npos && b != std::string::npos) result = line.substr(a + 15, b - a - 15);
    else EXPECT_NE(line.find("\"whyslow: "), std::string::npos) << "a console line of its own: " << line;
  }
  EXPECT_FALSE(result.empty()) << "the script logged nothing";
  return result.empty() ? "{}" : result;
}

}  // namespace whyslow::testing
