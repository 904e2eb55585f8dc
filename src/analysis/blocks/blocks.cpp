// Blocks: the user's code as a tree, from whatever the trace has — record_function blocks
// (user_annotation), nn.Module events (with_modules) and the Python frames of the user's own
// files (with_stack). Library frames (torch, transformers, builtins, the standard library:
// code_origin.hpp) are never blocks; their time stays in the block above them. A module's own
// `forward` frame is folded into the module (it gives the module its file:line).
//
// Blocks are aggregated by path: the same name under the same parent block is one row, its
// calls counted. Per row: CPU time (total, and self: less the child blocks), the GPU work launched
// beneath it (by the launch links), kernels, launches, and the self time of the events beneath it
// by Facts::cpu_category (sync waits, Python, dispatch, …).
//
// Work launched on other threads on a block's behalf (loss.backward() runs its kernels from
// autograd's engine thread): a launch under no block of its own thread, on a thread that runs
// autograd backward ops ("Fwd thread id": the trace's forward↔backward link, which torch also
// draws as `fwdbwd` flows; the engine's AccumulateGrad and DDP's bucket copies run there too, without
// one), is credited to the innermost block open on the main thread at the launch. Other threads'
// launches (a pin-memory thread, a user's worker) are nobody's block's: time alone does not make
// them the block's work.
//
// Backward where it belongs: autograd's backward ops carry the "Sequence number" of the forward op
// they were made for. The outermost backward op's time, and the GPU work launched inside it, is
// credited to the block of that forward op as the block's backward (a module's backward, wherever
// autograd's engine ran it). Sequence numbers count per forward thread: with one thread running
// forwards (every trace seen) they are unique.
//
// A loop in a block's own code shows as one name called many times directly beneath one call of
// it (Rotary's `for i in range(8)` as 32 aten::mul per call); `repeated_calls` keeps the most.
//
// One pass over each thread's events (parents before children), one over the GPU work, one merge
// of the other threads' unclaimed launches with the main thread's events; per event only a
// 32-bit node number.
#include <algorithm>
#include <unordered_map>

#include "analysis/blocks/block_groups.hpp"
#include "analysis/blocks/code_origin.hpp"
#include "trace/name_memo.hpp"
#include "analysis/core/nearest_ancestor.hpp"
#include "analysis/core/event_names.hpp"
#include "analysis/passes.hpp"
#include "trace/steps.hpp"

namespace whyslow {

std::string_view to_string(BlockKind k) {
  switch (k) {
    case BlockKind::Annotation: return "annotation";
    case BlockKind::Module: return "module";
    case BlockKind::Function: return "function";
  }
  return "function";
}

namespace {

// Per event: its innermost block (an index into the rows), or one of these.
constexpr uint32_t kOutside = UINT32_MAX;             // not measured (the steps' thread outside the steps)
constexpr uint32_t kNoBlock = UINT32_MAX - 1;         // measured, under no block of its thread
constexpr uint32_t kNoBlockBackward = UINT32_MAX - 2;  // … and inside an autograd backward op
bool is_block(uint32_t node) { return node < kNoBlockBackward; }

// LibraryAnnotation: a record_function torch itself opens around code it generated ("## Call
// CompiledFxGraph <hash> ##"): folded into the block around it as a library frame is, never a block.
enum class NameClass : uint8_t { NotBlock, Module, UserFrame, LibraryFrame, LibraryAnnotation };

// The tree's nodes: blocks, and the library frames folded into them (nodes too, so that a block's
// own time can be followed into the library code it runs; never blocks).
class TreeBuilder {
 public:
  TreeBuilder(const Trace& t)
      : t_(t), python_class_(t, &python_class), name_tests_(t, &test_name) {}

  // What a CPU event is as far as blocks go.
  NameClass classify(EventId e, bool& annotation) {
    annotation = false;
    const EventKind k = t_.kind[e];
    if (k == EventKind::UserAnnotation || (k == EventKind::CpuOp && (name_tests_.of(e) & kRecordFunctionName))) {
      if (is_compiled_graph_call(t_.name_of(e))) return NameClass::LibraryAnnotation;
      annotation = !profiler_step(e);
      return NameClass::NotBlock;
    }
    if (k != EventKind::PythonFunction) return NameClass::NotBlock;
    return python_class_.of(e);
  }

  // trace/steps.hpp's is_profiler_step(), asked only of the events whose name (tested once) is a
  // step's.
  bool profiler_step(EventId e) { return (name_tests_.of(e) & kProfilerStepName) && is_profiler_step(t_, e); }

  // The block a node's time is credited to: itself, or the block a library frame is folded into.
  uint32_t owner(uint32_t node) const { return is_block(node) ? owner_[node] : node; }
  bool is_library(uint32_t node) const { return is_block(node) && library_[node]; }

  // A block under the block that owns `up` (or at the top).
  uint32_t block(uint32_t up, NameId name, BlockKind kind) {
    const uint32_t parent = owner(up);
    return add(is_block(parent) ? parent : UINT32_MAX, name, kind, false);
  }
  // A library frame under `up` (a block or another library frame).
  uint32_t library_frame(uint32_t up, NameId name) { return add(up, name, BlockKind::Function, true); }

  std::vector<BlockRow> rows;  // every node; a library frame's `parent` is the node around it

 private:
  uint32_t add(uint32_t parent, NameId name, BlockKind kind, bool library) {
    const uint64_t key = (static_cast<uint64_t>(library) << 63) | (static_cast<uint64_t>(parent) << 32) | name;
    auto [it, added] = by_key_.try_emplace(key, static_cast<uint32_t>(rows.size()));
    if (added) {
      BlockRow r;
      r.name = name;
      r.kind = kind;
      r.parent = parent;
      r.depth = parent == UINT32_MAX ? 0 : rows[parent].depth + !library;
      if (kind == BlockKind::Function) r.location = name;
      owner_.push_back(library ? owner_[parent] : static_cast<uint32_t>(rows.size()));
      library_.push_back(library);
      rows.push_back(r);
    }
    return it->second;
  }

  // The name tests classify() and profiler_step() ask of nearly every event (name_memo.hpp).
  static constexpr uint8_t kRecordFunctionName = 1, kProfilerStepName = 2;
  static NameClass python_class(std::string_view n) {
    return is_module_event_name(n) ? NameClass::Module
           : is_library_frame(n)   ? NameClass::LibraryFrame
                                   : NameClass::UserFrame;
  }
  static uint8_t test_name(std::string_view n) {
    return (is_record_function_name(n) ? kRecordFunctionName : 0) | (is_profiler_step_name(n) ? kProfilerStepName : 0);
  }

  const Trace& t_;
  NameMemo<NameClass, NameClass (*)(std::string_view)> python_class_;  // of a Python frame's name
  NameMemo<uint8_t, uint8_t (*)(std::string_view)> name_tests_;
  std::unordered_map<uint64_t, uint32_t> by_key_;  // (library?, parent node, name) → node
  std::vector<uint32_t> owner_;
  std::vector<uint8_t> library_;
};

// The names called directly beneath the block calls open on one thread, innermost last: when a
// call ends, its most repeated name is the block's `repeated_calls` if no call did more.
class RepeatCounter {
 public:
  // Before each event of a thread, in order: closes the calls that end before it starts.
  void enter(int64_t start_ns, std::vector<BlockRow>& rows) {
    while (!open_.empty() && open_.back().end_ns <= start_ns) close(rows);
  }
  // An event directly beneath the innermost open call (its parent is that call) is one of its calls.
  void count(EventId parent, NameId name) {
    if (!open_.empty() && open_.back().event == parent) open_.back().names.push_back(name);
  }
  void open(EventId call, int64_t end_ns, uint32_t row) { open_.push_back({call, end_ns, row, {}}); }
  void finish(std::vector<BlockRow>& rows) {
    while (!open_.empty()) close(rows);
  }

 private:
  struct Call {
    EventId event;
    int64_t end_ns;
    uint32_t row;
    std::vector<NameId> names;
  };
  void close(std::vector<BlockRow>& rows) {
    std::vector<NameId>& n = open_.back().names;
    std::sort(n.begin(), n.end());
    uint32_t most = 0;
    for (size_t i = 0, j = 0; i < n.size(); i = j) {
      for (j = i; j < n.size() && n[j] == n[i]; ++j) {}
      most = std::max(most, static_cast<uint32_t>(j - i));
    }
    BlockRow& r = rows[open_.back().row];
    r.repeated_calls = std::max(r.repeated_calls, most);
    open_.pop_back();
  }
  std::vector<Call> open_;  // a stack: each call inside the one before
};

void credit_gpu(const Trace& t, BlockRow& r, EventId gpu) {
  r.gpu_ns += t.dur_ns[gpu];
  if (t.kind[gpu] != EventKind::Kernel) return;
  ++r.kernels;
  if (r.longest_kernel == kNoEvent || t.dur_ns[gpu] > t.dur_ns[r.longest_kernel]) r.longest_kernel = gpu;
}

// Each outermost backward op (and the GPU work launched inside it) to the block of the forward op
// that shares its sequence number.
void credit_backward(const Trace& t, const std::vector<bool>& backward_op, const std::vector<uint32_t>& node_of,
                     TreeBuilder& tree, int64_t& basis_ns) {
  // The backward op nearest around an event, memoized: 90,000 nested events are walked once.
  NearestAncestor backward_around(t, [&](EventId a) { return static_cast<bool>(backward_op[a]); });
  auto outermost = [&](EventId e) { return backward_around.of(t.parent[e]) == kNoEvent; };  // none around it
  for (const EventId e : t.backward_ops)
    if (outermost(e) && node_of[e] != kOutside) basis_ns += t.dur_ns[e];
  if (t.backward_ops.empty()) return;
  std::unordered_map<int64_t, uint32_t> forward_block;  // sequence number → the forward op's block
  for (const Trace::OpSequence& s : t.op_sequence)
    if (!backward_op[s.event] && is_block(node_of[s.event])) forward_block.try_emplace(s.seq, tree.owner(node_of[s.event]));
  if (forward_block.empty()) return;
  auto block_of = [&](EventId op) -> BlockRow* {
    const auto it = std::lower_bound(t.op_sequence.begin(), t.op_sequence.end(), op,
                                     [](const Trace::OpSequence& s, EventId id) { return s.event < id; });
    if (it == t.op_sequence.end() || it->event != op) return nullptr;
    const auto b = forward_block.find(it->seq);
    return b == forward_block.end() ? nullptr : &tree.rows[b->second];
  };
  for (const EventId e : t.backward_ops) {
    if (!outermost(e) || node_of[e] == kOutside) continue;
    if (BlockRow* r = block_of(e)) r->backward_cpu_ns += t.dur_ns[e], ++r->backward_ops;
  }
  for (EventId g = 0; g < t.size(); ++g) {
    if (!is_gpu_activity(t.kind[g]) || t.launch_link[g] == kNoEvent) continue;
    const EventId op = backward_around.outermost(t.parent[t.launch_link[g]]);  // the outermost backward op around the launch
    if (op == kNoEvent || node_of[op] == kOutside) continue;
    if (BlockRow* r = block_of(op)) {
      r->backward_gpu_ns += t.dur_ns[g];
      r->backward_kernels += t.kind[g] == EventKind::Kernel;
    }
  }
}

// Depth first, heavier siblings (CPU, then GPU time) first; parent indices renumbered.
// `new_index` gets each input row's place in the output.
std::vector<BlockRow> depth_first(std::vector<BlockRow> rows, std::vector<uint32_t>& new_index) {
  std::vector<std::vector<uint32_t>> children(rows.size() + 1);  // last: the top level
  for (uint32_t i = 0; i < rows.size(); ++i)
    children[rows[i].parent == UINT32_MAX ? rows.size() : rows[i].parent].push_back(i);
  auto heavier = [&](uint32_t a, uint32_t b) {
    if (rows[a].cpu_total_ns != rows[b].cpu_total_ns) return rows[a].cpu_total_ns > rows[b].cpu_total_ns;
    if (rows[a].gpu_ns != rows[b].gpu_ns) return rows[a].gpu_ns > rows[b].gpu_ns;
    return a < b;
  };
  for (auto& c : children) std::sort(c.begin(), c.end(), heavier);
  std::vector<BlockRow> out;
  out.reserve(rows.size());
  new_index.assign(rows.size(), UINT32_MAX);
  std::vector<uint32_t> todo(children.back().rbegin(), children.back().rend());
  while (!todo.empty()) {
    const uint32_t i = todo.back();
    todo.pop_back();
    new_index[i] = static_cast<uint32_t>(out.size());
    out.push_back(rows[i]);
    if (out.back().parent != UINT32_MAX) out.back().parent = new_index[out.back().parent];
    todo.insert(todo.end(), children[i].rbegin(), children[i].rend());
  }
  return out;
}

}  // namespace

BlockFacts code_blocks(const Trace& t, const std::vector<StepFacts>& steps, const StepFacts& window,
                       TrackId main_thread, const std::vector<CpuCategory>& cpu_category) {
  BlockFacts out;
  for (const StepFacts& s : steps) out.basis_cpu_ns += s.duration_ns;
  if (steps.empty()) out.basis_cpu_ns = window.duration_ns;
  std::vector<uint8_t> step_track(t.tracks.size(), 0);
  for (const StepFacts& s : steps) step_track[t.track[s.event]] = 1;
  // Steps in time order, for "did this start in a step?".
  std::vector<std::pair<int64_t, int64_t>> step_spans;
  for (const StepFacts& s : steps) step_spans.emplace_back(s.start_ns, s.end_ns);
  std::sort(step_spans.begin(), step_spans.end());
  auto in_a_step = [&](int64_t ts) {
    if (steps.empty()) return true;
    auto it = std::upper_bound(step_spans.begin(), step_spans.end(), std::make_pair(ts, INT64_MAX));
    return it != step_spans.begin() && ts < std::prev(it)->second;
  };
  std::vector<bool> backward_op(t.size(), false);
  std::vector<uint8_t> engine_thread(t.tracks.size(), 0);  // runs autograd's backward ops
  for (EventId e : t.backward_ops) backward_op[e] = true, engine_thread[t.track[e]] = 1;
  auto category = [&](EventId e) {
    return static_cast<size_t>(e < cpu_category.size() ? cpu_category[e] : CpuCategory::Other);
  };

  TreeBuilder tree(t);
  std::vector<uint32_t> node_of(t.size(), kOutside);
  // Per library-frame node: the time of the blocks called beneath it (not its own), and whether
  // it is module-call plumbing (it wraps a module's own forward). Grown as nodes are made.
  std::vector<int64_t> blocks_beneath;
  std::vector<uint8_t> plumbing;
  auto add_at = [](std::vector<int64_t>& v, uint32_t i, int64_t ns) {
    if (v.size() <= i) v.resize(i + 1, 0);
    v[i] += ns;
  };
  auto mark = [](std::vector<uint8_t>& v, uint32_t i) {
    if (v.size() <= i) v.resize(i + 1, 0);
    v[i] = 1;
  };
  std::vector<TrackId> thread_seen;  // per node: the last thread a call of it was counted on
  for (TrackId k = 0; k < t.tracks.size(); ++k) {
    const Track& tr = t.tracks[k];
    if (tr.kind != TrackKind::Cpu) continue;
    RepeatCounter repeats;
    for (const EventId e : tr.events) {
      if (t.kind[e] == EventKind::Instant) continue;
      repeats.enter(t.start_ns[e], tree.rows);
      bool annotation = false;
      const NameClass c = tree.classify(e, annotation);
      out.annotation_events += annotation;
      out.module_events += c == NameClass::Module;
      out.python_frames += c == NameClass::UserFrame || c == NameClass::LibraryFrame;
      const EventId p = t.parent[e];
      uint32_t up = p != kNoEvent ? node_of[p]
                    : step_track[k] ? kOutside  // before, between or after the steps
                    : in_a_step(t.start_ns[e]) ? kNoBlock
                                               : kOutside;
      if (tree.profiler_step(e)) up = kNoBlock;
      if (up == kOutside) continue;
      if (backward_op[e] && !is_block(up)) up = kNoBlockBackward;
      uint32_t node = up;
      const bool module_forward = is_block(up) && tree.rows[tree.owner(up)].kind == BlockKind::Module &&
                                  (c == NameClass::UserFrame || c == NameClass::LibraryFrame) &&
                                  parse_frame_name(t.name_of(e)).function == "forward";
      bool new_call = true;
      if (module_forward) {
        // The module's own forward: its location, the first time it is seen; never a block. The
        // library frames between the module and it (torch's _call_impl) are plumbing, and what
        // the forward calls hangs from the module itself.
        const uint32_t module = tree.owner(up);
        BlockRow& m = tree.rows[module];
        if (m.location == kNoName) m.location = t.name[e], m.user_code = c == NameClass::UserFrame;
        for (uint32_t n = up; tree.is_library(n); n = tree.rows[n].parent) mark(plumbing, n);
        node = module;
        new_call = false;
      } else if (annotation || c == NameClass::Module || c == NameClass::UserFrame) {
        node = tree.block(up, t.name[e],
                          annotation ? BlockKind::Annotation
                          : c == NameClass::Module ? BlockKind::Module
                                                   : BlockKind::Function);
        if (tree.is_library(up)) add_at(blocks_beneath, up, t.dur_ns[e]);
      } else if ((c == NameClass::LibraryFrame || c == NameClass::LibraryAnnotation) && is_block(up)) {
        node = tree.library_frame(up, t.name[e]);
      } else {
        new_call = false;
      }
      if (new_call) {
        BlockRow& r = tree.rows[node];
        ++r.calls;
        r.cpu_total_ns += t.dur_ns[e];
        if (r.longest_call == kNoEvent || t.dur_ns[e] > t.dur_ns[r.longest_call]) r.longest_call = e;
        if (thread_seen.size() <= node) thread_seen.resize(node + 1, UINT32_MAX);
        if (thread_seen[node] != k) ++r.threads, thread_seen[node] = k;
      }
      // What the block's own code calls: the events directly beneath a block call (or a module's
      // forward frame), other than the blocks it opens.
      const bool opens_block = new_call && !tree.is_library(node);
      if (!opens_block) repeats.count(p, t.name[e]);
      if (opens_block || module_forward) repeats.open(e, t.end_ns(e), tree.owner(node));
      node_of[e] = node;
      // Self time by category: the event's duration here, less what its children take back.
      if (is_block(node)) tree.rows[tree.owner(node)].cpu_breakdown[category(e)] += t.dur_ns[e];
      if (p != kNoEvent && is_block(up)) tree.rows[tree.owner(up)].cpu_breakdown[category(p)] -= t.dur_ns[e];
      if (is_block(node) && t.is_launch(e)) ++tree.rows[tree.owner(node)].launches;
    }
    repeats.finish(tree.rows);
  }
  credit_backward(t, backward_op, node_of, tree, out.basis_backward_ns);

  // GPU work: to the block of its launch; other threads' launches under no block wait for the merge.
  struct Unclaimed {
    int64_t ts;
    EventId gpu;
  };
  std::vector<Unclaimed> unclaimed;
  for (EventId g = 0; g < t.size(); ++g) {
    if (!is_gpu_activity(t.kind[g])) continue;
    const EventId launch = t.launch_link[g];
    if (launch == kNoEvent) continue;
    if (in_a_step(t.start_ns[launch])) out.basis_gpu_ns += t.dur_ns[g];
    const uint32_t node = node_of[launch];
    if (is_block(node)) credit_gpu(t, tree.rows[tree.owner(node)], g);
    else if (node != kOutside && engine_thread[t.track[launch]] && t.track[launch] != main_thread)
      unclaimed.push_back({t.start_ns[launch], g});
  }
  if (!unclaimed.empty() && main_thread < t.tracks.size()) {
    std::sort(unclaimed.begin(), unclaimed.end(), [](const Unclaimed& a, const Unclaimed& b) { return a.ts < b.ts; });
    const std::vector<EventId>& main = t.tracks[main_thread].events;
    std::vector<std::pair<int64_t, uint32_t>> open;  // (end, node) of the main thread's open events
    size_t next = 0;
    for (const Unclaimed& u : unclaimed) {
      for (; next < main.size() && t.start_ns[main[next]] <= u.ts; ++next) {
        const EventId e = main[next];
        if (t.kind[e] == EventKind::Instant) continue;
        while (!open.empty() && open.back().first <= t.start_ns[e]) open.pop_back();
        open.emplace_back(t.end_ns(e), node_of[e]);
      }
      while (!open.empty() && open.back().first <= u.ts) open.pop_back();
      if (open.empty() || !is_block(open.back().second)) continue;
      BlockRow& r = tree.rows[tree.owner(open.back().second)];
      credit_gpu(t, r, u.gpu);
      r.other_thread_gpu_ns += t.dur_ns[u.gpu];
      r.launches += t.launch_link[t.launch_link[u.gpu]] == u.gpu;  // once per launch call: its first GPU work
      r.attribution |= kForwardBackwardLink;
    }
  }

  // Inclusive sums, children into parents (a parent node is always made before its children).
  std::vector<BlockRow>& rows = tree.rows;
  for (BlockRow& r : rows) r.self_cpu_ns = r.cpu_total_ns;
  for (size_t i = rows.size(); i-- > 0;) {
    const BlockRow& c = rows[i];
    if (c.parent == UINT32_MAX || tree.is_library(static_cast<uint32_t>(i))) continue;
    BlockRow& p = rows[c.parent];
    p.self_cpu_ns -= c.cpu_total_ns;
    p.gpu_ns += c.gpu_ns;
    p.other_thread_gpu_ns += c.other_thread_gpu_ns;
    p.kernels += c.kernels;
    p.launches += c.launches;
    for (size_t k = 0; k < kCpuCategories; ++k) p.cpu_breakdown[k] += c.cpu_breakdown[k];
    p.attribution |= c.attribution;
    p.backward_cpu_ns += c.backward_cpu_ns;
    p.backward_gpu_ns += c.backward_gpu_ns;
    p.backward_ops += c.backward_ops;
    p.backward_kernels += c.backward_kernels;
    if (c.longest_kernel != kNoEvent &&
        (p.longest_kernel == kNoEvent || t.dur_ns[c.longest_kernel] > t.dur_ns[p.longest_kernel]))
      p.longest_kernel = c.longest_kernel;
  }
  // Blocks and library frames apart, numbered in their own lists.
  std::vector<uint32_t> compact(rows.size(), UINT32_MAX);
  std::vector<BlockRow> block_rows;
  for (uint32_t i = 0; i < rows.size(); ++i) {
    if (tree.is_library(i)) continue;
    compact[i] = static_cast<uint32_t>(block_rows.size());
    block_rows.push_back(rows[i]);
    if (block_rows.back().parent != UINT32_MAX) block_rows.back().parent = compact[block_rows.back().parent];
  }
  std::vector<uint32_t> dfs;
  out.rows = depth_first(std::move(block_rows), dfs);
  blocks_beneath.resize(rows.size(), 0);
  plumbing.resize(rows.size(), 0);
  for (size_t i = rows.size(); i-- > 0;)
    if (tree.is_library(static_cast<uint32_t>(i)) && tree.is_library(rows[i].parent))
      blocks_beneath[rows[i].parent] += blocks_beneath[i];
  for (uint32_t i = 0; i < rows.size(); ++i) {
    if (!tree.is_library(i) || plumbing[i]) continue;
    compact[i] = static_cast<uint32_t>(out.library_frames.size());
    const BlockRow& r = rows[i];
    uint32_t parent = r.parent;  // the nearest library frame around it that is not plumbing
    while (tree.is_library(parent) && plumbing[parent]) parent = rows[parent].parent;
    LibraryFrameRow f;
    f.name = r.name;
    f.block = dfs[compact[tree.owner(i)]];
    f.parent = tree.is_library(parent) ? compact[parent] : UINT32_MAX;
    f.calls = r.calls;
    f.cpu_total_ns = r.cpu_total_ns;
    f.block_ns = blocks_beneath[i];
    out.library_frames.push_back(f);
  }
  group_blocks(t, out);
  return out;
}

}  // namespace whyslow
