// The `whyslow._whyslow` extension module: the C++ pipeline behind `import whyslow` (python/whyslow/).
// Thin on purpose: load → analyze → explain is pipeline/pipeline.hpp's load_and_analyze, the same
// call the CLI makes, and every rendering is the CLI's renderer, so a notebook and a terminal see
// the same numbers and the same words. The Python side turns the JSON document into tables.
// The GIL is released while C++ works; loader notes come back as Python warnings.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <string>
#include <vector>

#include "output/output_file.hpp"
#include "pipeline/pipeline.hpp"
#include "report/digest/ranks_job.hpp"
#include "report/format.hpp"
#include "report/html/report.hpp"
#include "report/json/json_report.hpp"
#include "report/text/text_report.hpp"
#include "trace/load_error.hpp"
#include "trace/trace_set.hpp"

namespace py = pybind11;

namespace whyslow {
namespace {

// text() is what `whyslow explain` (`diff`) prints into a pipe: a string is read as a pipe's output
// is, printed in a notebook or saved to a file, so its prose comes at the same 80 columns.
constexpr size_t kTextWidth = report::kPipeLineWidth;

const char* kind_name(LoadError::Kind k) {
  switch (k) {
    case LoadError::Kind::Io: return "io";
    case LoadError::Kind::Syntax: return "syntax";
    case LoadError::Kind::Schema: return "schema";
    case LoadError::Kind::Truncated: return "truncated";
    case LoadError::Kind::TooLarge: return "too_large";
  }
  return "io";
}

// Notes gathered while the GIL is released, raised as warnings once it is held again.
struct Notes {
  std::vector<std::string> lines;
  NoteSink sink() {
    return [this](const std::string& n) { lines.push_back(n); };
  }
  void warn() const {
    for (const std::string& n : lines) PyErr_WarnEx(PyExc_UserWarning, ("whyslow: " + n).c_str(), 1);
  }
};

// One analyzed trace; renders on demand (an HTML page is megabytes for a big trace).
class Analysis {
 public:
  explicit Analysis(Analyzed x) : x_(std::move(x)) {}
  std::string json() const { return render_json(x_.trace, x_.facts, x_.findings); }
  std::string text(size_t max_rows) const {
    return render_explain_text(x_.trace, x_.facts, x_.findings, {.max_rows = max_rows, .line_width = kTextWidth});
  }
  std::string html() const { return render_html(x_.trace, x_.facts, x_.findings); }

 private:
  Analyzed x_;
};

// Two analyzed traces and their diff (the diff refers to both, so they live together).
class Comparison {
 public:
  explicit Comparison(AnalyzedPair p) : p_(std::move(p)) {
    d_ = diff_traces(p_.a.trace, p_.a.facts, p_.b.trace, p_.b.facts);
  }
  std::string json() const { return render_diff_json(d_); }
  std::string text(size_t max_rows) const { return render_diff_text(d_, {.max_rows = max_rows, .line_width = kTextWidth}); }
  std::string html() const {
    return render_html_diff(p_.a.trace, p_.a.facts, p_.a.findings, p_.b.trace, p_.b.facts, p_.b.findings, d_);
  }

 private:
  AnalyzedPair p_;
  Diff d_;
};

// A job's ranks explained together (`whyslow explain R0 R1 …`).
class RanksAnalysis {
 public:
  explicit RanksAnalysis(RanksReport r) : r_(std::move(r)) {}
  std::string json() const { return render_ranks_json(r_); }
  std::string text() const { return render_ranks_text(r_, kTextWidth); }

 private:
  RanksReport r_;
};

AnalysisOptions options_for(const std::string& path, const std::string& peaks, int step) {
  AnalysisOptions o;
  o.path = path;
  o.peaks = peaks;
  o.step = step;
  return o;
}

// Runs `work` without the GIL; the result is built before the GIL is taken back.
template <class Work>
auto without_gil(Work&& work) {
  py::gil_scoped_release release;
  return work();
}

}  // namespace
}  // namespace whyslow

PYBIND11_MODULE(_whyslow, m) {
  using namespace whyslow;
  m.doc() = "whyslow's C++ core (use the `whyslow` package, not this module)";

  // TraceError(message) with .kind and .byte_offset; the message is the CLI's, naming the file.
  static py::exception<LoadError> trace_error(m, "TraceError", PyExc_ValueError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const LoadError& e) {
      py::object err = py::reinterpret_borrow<py::object>(trace_error.ptr())(e.what());
      err.attr("kind") = kind_name(e.kind());
      err.attr("byte_offset") = e.byte_offset();
      PyErr_SetObject(trace_error.ptr(), err.ptr());
    } catch (const UsageError& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const OutputError& e) {
      PyErr_SetString(PyExc_OSError, e.what());
    }
  });

  py::class_<Analysis>(m, "Analysis")
      .def("json", &Analysis::json, py::call_guard<py::gil_scoped_release>())
      .def("text", &Analysis::text, py::arg("max_rows"), py::call_guard<py::gil_scoped_release>())
      .def("html", &Analysis::html, py::call_guard<py::gil_scoped_release>());
  py::class_<RanksAnalysis>(m, "RanksAnalysis")
      .def("json", &RanksAnalysis::json, py::call_guard<py::gil_scoped_release>())
      .def("text", &RanksAnalysis::text, py::call_guard<py::gil_scoped_release>());
  py::class_<Comparison>(m, "Comparison")
      .def("json", &Comparison::json, py::call_guard<py::gil_scoped_release>())
      .def("text", &Comparison::text, py::arg("max_rows"), py::call_guard<py::gil_scoped_release>())
      .def("html", &Comparison::html, py::call_guard<py::gil_scoped_release>());

  m.def(
      "analyze",
      [](const std::string& path, const std::string& peaks, int step, const std::string& label) {
        Notes notes;
        auto result = without_gil([&] {
          Analyzed x = load_and_analyze(options_for(path, peaks, step), notes.sink());
          if (!label.empty()) x.trace.path = label;  // what the reports name the trace by
          return std::make_unique<Analysis>(std::move(x));
        });
        notes.warn();
        return result;
      },
      py::arg("path"), py::arg("peaks") = "", py::arg("step") = -1, py::arg("label") = "",
      "load, analyze and explain one trace (the CLI's load_and_analyze); `label` names it in the "
      "reports in place of the path (a live profiler's temporary file)");
  m.def(
      "trace_paths",
      [](const std::vector<std::string>& args) {
        Notes notes;
        std::vector<std::string> paths = expand_rank_paths(args, notes.sink());
        const bool one_trace = paths.size() == 1 && !is_digest_file(paths[0]);
        notes.warn();
        return py::make_tuple(paths, one_trace);
      },
      py::arg("args"),
      "(paths, one_trace): the trace files that files, folders and globs name, as `whyslow explain` reads "
      "them (a folder's file that is neither a trace nor a digest left out, with a warning); one_trace when "
      "they are one trace to explain on its own (not a digest)");
  m.def(
      "analyze_ranks",
      [](const std::vector<std::string>& paths, const std::string& peaks, int step) {
        Notes notes;
        auto result = without_gil([&] {
          std::vector<RankSummary> summaries;
          for (const std::string& path : paths) {
            if (is_digest_file(path)) {
              summaries.push_back(read_digest_file(path));
              continue;
            }
            const Analyzed x = load_and_analyze(options_for(path, peaks, step), notes.sink());
            summaries.push_back(rank_summary(x.trace, x.facts, x.findings));
          }
          return std::make_unique<RanksAnalysis>(ranks_of_one_job(std::move(summaries)));
        });
        notes.warn();
        return result;
      },
      py::arg("paths"), py::arg("peaks") = "", py::arg("step") = -1,
      "a job's ranks (traces or digests) explained together; TraceError when they are not one job's ranks");
  m.def(
      "compare",
      [](const std::string& a, const std::string& b, const std::string& peaks) {
        Notes notes;
        auto result = without_gil([&] {
          return std::make_unique<Comparison>(load_and_analyze_pair(options_for(a, peaks, -1), b, notes.sink()));
        });
        notes.warn();
        return result;
      },
      py::arg("a"), py::arg("b"), py::arg("peaks") = "", "analyze two traces and diff them (`whyslow diff`)");
  m.def(
      "write_file",
      [](const std::string& path, const std::string& content, const std::vector<std::string>& inputs) {
        write_file_atomically(path, content, {.inputs = inputs});
      },
      py::arg("path"), py::arg("content"), py::arg("inputs"), py::call_guard<py::gil_scoped_release>(),
      "write a whole file or nothing, never over one of `inputs` (src/output/)");
}
