// Facts: what the analysis passes measured, in numbers taken from the trace. The explain layer
// turns these into findings; the report layer prints the tables. Times are integer ns.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/comm/comm_names.hpp"
#include "analysis/graph/graph_facts.hpp"
#include "analysis/roofline/roofline.hpp"
#include "trace/trace.hpp"

namespace whyslow {

// ---- CPU time by category (cpu_time.cpp: the definition, rule by rule) ----
enum class CpuCategory : uint8_t {
  DataLoading,  // inside a DataLoader span (enumerate(DataLoader)#…), whatever runs there
  SyncWait,     // blocked in a synchronizing call or a blocking copy
  Allocator,    // cudaMalloc/cudaFree/cudaHostAlloc and their driver/HIP twins
  Launch,       // other runtime/driver calls: launches, async copies, event records, queries
  Compile,      // torch.compile's own CPU work: Dynamo cache lookups and guards, compilation
  Profiler,     // the profiler's own bookkeeping on the thread
  Python,       // Python self time (python_function events, with_stack)
  Dispatch,     // self time of ops whose top-level op launches GPU work: what CUDA graphs remove
  CpuCompute,   // self time of ops whose top-level op launches nothing, and of Python inside a call of
                // ≥ 1 ms that launches nothing: CPU math, preprocessing
  Other,        // annotations' self time and time in no recorded event
  Count
};
inline constexpr size_t kCpuCategories = static_cast<size_t>(CpuCategory::Count);
std::string_view to_string(CpuCategory c);  // the JSON key: "data_loading", "sync_wait", …
using CpuBreakdown = std::array<int64_t, kCpuCategories>;  // ns per category, summing to the span

// ---- why the GPU is idle (gpu/idle_gaps.cpp: the definition, rule by rule) ----
// Each stretch of a window in which no GPU work runs on any stream, split by what it waited for.
enum class IdleCause : uint8_t {
  Prefix,      // the CPU's part of the gap that opens the window: CPU work before the GPU's first work
  Launch,      // the CPU's part of a later gap: the next work was not launched yet (overhead)
  Sync,        // the same, after the launching thread sat in a host sync that ended in the gap
  Scheduling,  // the GPU's part, ≤ kQueueLatencyNs: queued work's own latency to start
  Dependency,  // the GPU's part, longer: queued work held back (another stream, an event, a host function)
  Backlog,     // the GPU's part before the trace's first GPU work: busy with work the trace does not show
  Tail,        // after the window's last GPU work
  Unlinked,    // the work that ends the gap has no launch call in the trace
  Profiler,    // the CPU's part (or the tail) while the profiler kept its own books (CUPTI's buffer requests)
  Count
};
inline constexpr size_t kIdleCauses = static_cast<size_t>(IdleCause::Count);
std::string_view to_string(IdleCause c);  // the JSON key: "prefix", "launch", …

struct GpuIdle {
  int64_t busy_ns = 0;  // GPU work running inside the window (clipped to it), all streams merged
  std::array<int64_t, kIdleCauses> ns{};  // busy_ns + their sum = the window's duration
  uint32_t gaps = 0;
  uint32_t stream_waits = 0;  // cudaStreamWaitEvent/hipStreamWaitEvent calls started in the window
  // Gaps whose queued work started only as a host wait on its launching thread began (lazy
  // submission, idle_gaps.cpp rule 3): the host held it back, not a dependency.
  uint32_t submitted_at_wait = 0;
  // The trace holds evidence that a stream can wait on something outside its own queue: a stream
  // wait, an event record or a host function call, or the GPU's own sync records. Without it a
  // queued wait is not shown to be a dependency.
  bool dependency_evidence = false;
  // The longest gap: where it starts, how long, its largest cause, the GPU work that ended it.
  int64_t longest_at_ns = 0, longest_ns = 0;
  IdleCause longest_cause = IdleCause::Tail;
  EventId longest_ended_by = kNoEvent;
};

// ---- steps (ProfilerStep#N) ----
struct StepFacts {
  EventId event = kNoEvent;  // the ProfilerStep#N annotation
  std::string name;
  int64_t start_ns = 0, end_ns = 0;
  int64_t duration_ns = 0;
  // Host time not spent blocked in a synchronizing call: the CPU work of the step.
  int64_t cpu_ns = 0;
  int64_t sync_wait_ns = 0;  // host time blocked in synchronize calls and blocking copies
  // Union of the kernel/memcpy/memset intervals (all streams) launched from within the step (work
  // with no launch in the trace: started within it).
  int64_t gpu_busy_ns = 0;
  // Where the last GPU work launched in the step ends (may be after the step ends).
  int64_t gpu_end_ns = 0;
  uint32_t kernels = 0, memcpys = 0, memsets = 0, launches = 0;
  // Every ns of [start, end) on the step's thread (a stepless window: the main thread) in one category.
  CpuBreakdown cpu_breakdown{};
  // Time inside DataLoader spans during which no GPU work ran (on any stream).
  int64_t data_loading_gpu_idle_ns = 0;
  uint32_t allocator_calls = 0;  // allocator calls on the step's thread, started in the step
  // The step's GPU work split (comm_names.hpp says what communication is): compute is the union of
  // the other kernels, copies and memsets; comm the union of the communication kernels; exposed comm the
  // part of comm during which no compute ran. gpu_busy_ns = compute_ns + exposed_comm_ns.
  int64_t compute_ns = 0, comm_ns = 0, exposed_comm_ns = 0;
  GpuIdle idle;  // the GPU inside [start, end) and why it idles (classify_gpu_idle)
};

// ---- op table: torch's key_averages() ----
struct OpRow {
  std::string name;  // key: ProfilerStep#N grouped as "ProfilerStep*", as torch does
  bool device_row = false;  // torch's separate device-side row (kernels, copies, GPU annotations)
  uint64_t calls = 0;
  int64_t self_cpu_ns = 0, cpu_total_ns = 0;
  int64_t device_total_ns = 0, self_device_ns = 0;
};

// ---- kernel table ----
struct KernelRow {
  NameId name = kNoName;
  uint64_t calls = 0;
  int64_t total_ns = 0, min_ns = 0, max_ns = 0, median_ns = 0;
  GpuDetail launch;  // grid/block/registers/shared memory of the first call
  bool uniform_launch = true;  // every call had the same grid/block
  std::vector<EventId> events;
};
// A kernel's mean duration to the nearest ns (text and JSON agree on it).
inline int64_t mean_ns(const KernelRow& k) {
  const int64_t calls = static_cast<int64_t>(k.calls);
  return calls > 0 ? (k.total_ns + calls / 2) / calls : 0;
}

// ---- record_function blocks ----
struct AnnotationRow {
  std::string name;
  uint64_t calls = 0;
  int64_t cpu_total_ns = 0;
  int64_t gpu_ns = 0;       // sum of the GPU work launched inside the blocks
  uint64_t kernels = 0;
};

// ---- launches: CPU → GPU queue ----
// Queued work that starts within 50 µs is the GPU's own latency from queue to start (a launch's
// 2–10 µs on H100/H200 plus the driver, up to ~20 µs between graph nodes on MI300X): a GPU running
// its queue back to back. Longer, the work waited for something that is not its stream's queue. One
// line for every pass and rule that tells a queue from a wait: the launch delays (launches.cpp), the
// idle split's Scheduling (idle_gaps.cpp), lazy submission (lazy_submission.hpp), launch_queue.
inline constexpr int64_t kQueueLatencyNs = 50'000;

struct LaunchFacts {
  uint64_t launches = 0;       // host API calls linked to GPU activity
  uint64_t linked = 0;         // GPU activities with a resolved launch
  uint64_t unlinked_gpu = 0;   // GPU activities with no launch in the trace
  // Delay from the launch call's start to the GPU work's start.
  std::vector<int64_t> delays_ns;  // sorted
  EventId max_delay_kernel = kNoEvent;
  int64_t max_delay_ns = 0;
  // Work that sat queued ≥ kQueueLatencyNs (launches.cpp), and of it the work whose wait the GPU
  // spent mostly idle (no work on any stream, in gaps over 50 µs, from the trace's first GPU work
  // on, for over half the delay): held back, not a backlog.
  uint64_t queued = 0, held = 0;
  bool max_delay_held = false;  // the longest-queued work's wait was mostly GPU-idle
};

// ---- synchronization ----
struct SyncCall {
  EventId event = kNoEvent;
  int64_t wait_ns = 0;
  int64_t gpu_busy_ns = 0;  // GPU work (all streams) running during the wait
  bool blocking_copy = false;
  // Made inside DDP, FSDP or c10d (comm_names.hpp: is_distributed_library_frame): the library's
  // own sync, not the user's .item().
  bool distributed_library = false;
  int64_t comm_busy_ns = 0; // of gpu_busy_ns, communication kernels running (union of them, during the wait)
};
struct SyncFacts {
  std::vector<SyncCall> calls;
  int64_t total_wait_ns = 0, total_gpu_busy_ns = 0;
  int64_t total_comm_busy_ns = 0;
  uint64_t library_calls = 0;   // calls with distributed_library
  int64_t library_wait_ns = 0;
};

// ---- copies ----
struct CopyRow {
  EventId event = kNoEvent;
  NameId name = kNoName;
  int64_t bytes = -1;
  int64_t dur_ns = 0;
};
struct CopyFacts {
  std::vector<CopyRow> pageable;        // Pageable in the name: staged through a bounce buffer
  std::vector<CopyRow> device_to_device;  // Memcpy DtoD
  std::vector<CopyRow> device_to_host;  // DtoH: each one a host sync point
};

// ---- cold start ----
enum class ColdCauseKind : uint8_t {
  Compilation,          // torch.compile's Dynamo/Inductor compilation
  ModuleLoading,        // Runtime Triggered Module Loading
  LazyLoading,          // Lazy Function Loading
  ProfilerBuffers,      // Activity Buffer Request
  MemoryAllocation,     // cudaMalloc/cudaFree and twins
  StreamEventCreation,  // cudaStreamCreate/cudaEventCreate and twins
  LibrarySetup,         // kernel attribute and device queries
  ContextCreation,      // the trace's first CUDA/HIP call, when it is a slow one-off call (≥ 100 ms, GPU idle)
  SlowFirstUse,         // any other slow one-off CUDA/HIP call: first launch of a kernel, first allocation
  FirstCallWork,        // first calls slower than later ones with no CUDA call to show for it
  FirstLaunch,          // first calls slow in a kernel's first launch (1 ms or more): its module loading on first use
  Autotuning,           // first calls that timed candidate kernels (events recorded and waited on inside them)
};
// The stable snake_case id of the evidence key "<id>_us": "module_loading", …
std::string_view to_string(ColdCauseKind kind);

// An op's first call on an input shape that took far longer than its usual calls
// (analysis/cpu/first_calls.hpp).
struct FirstCall {
  EventId op = kNoEvent;
  int64_t excess_ns = 0;   // its time (less compilation and host waits) beyond the op's usual
  bool new_shape = false;  // the op ran before on another shape: work paid once per new shape
  // What the call's usual time was taken from (first_calls.cpp).
  enum class Baseline : uint8_t {
    SameShape,       // the op's later calls on the same input shapes
    OtherShapes,     // its calls on other shapes that were not first calls themselves
    LaunchingCalls,  // its other calls, all launching GPU work: a GPU op's host part does not grow with shape
    TypicalCall,     // a stepless trace's typical later call, where a module load or kernel timing inside shows first use
  } baseline = Baseline::SameShape;
  int step = -1;           // index into Facts::steps, -1 outside any
};
struct FirstCallFacts {
  std::vector<FirstCall> calls;              // in time order
  std::vector<int64_t> new_shape_per_step_ns;  // one per Facts::steps: first-seen-shape work inside it
};

struct ColdCause {
  ColdCauseKind kind = ColdCauseKind::FirstCallWork;
  uint64_t count = 0;
  int64_t total_ns = 0;
};
struct ColdStartFacts {
  int step_index = -1;             // the outlier step, -1 when none
  int64_t step_ns = 0;
  int64_t typical_step_ns = 0;     // median of the other steps
  std::vector<ColdCause> causes;   // sorted by time, largest first
  bool first_calls_in_ops = true;  // FirstCallWork was looked for in ops (false: in the scopes of a native trace)
  std::vector<EventId> evidence;   // the largest events
  // A trace without steps: where its start-up stretch ends (the end of the last slow one-off
  // CUDA/HIP call, ≥ 100 ms with the GPU idle); 0 when it has none.
  int64_t startup_end_ns = 0;
  // The first calls counted (FirstCallWork), each with its excess beyond its first launches, and
  // those launches (FirstLaunch): what the one-off what-if takes off a trace without steps.
  std::vector<std::pair<EventId, int64_t>> first_call_work;
  std::vector<EventId> first_launches;
  // A first call that timed candidate kernels (Autotuning) ran cuDNN's convolution: its benchmark
  // mode (torch.backends.cudnn.benchmark).
  bool autotuned_convolution = false;
  // The causes' time, the profiler's own buffer requests apart: they are no start-up of the
  // program's (profiler_artifact reports them).
  int64_t program_start_up_ns() const;
};

// ---- torch.compile (compile/compile.cpp) ----
// Dynamo's compile id "F/R" ("Torch-Compiled Region: 0/3", "…_data: compile_id=0/3"): frame F's
// R-th recompilation (R = 0: its first compilation). -1 when the trace does not say.
struct CompileId {
  int32_t frame = -1, recompile = -1;
  bool known() const { return frame >= 0 && recompile >= 0; }
};
// One compilation: a stretch of overlapping Dynamo/Inductor compile events
// ("_compile.compile_inner (dynamo_timed)", "entire_frame_compile", …).
struct Compilation {
  EventId event = kNoEvent;  // its first compile event
  int64_t start_ns = 0, end_ns = 0;
  int64_t ns = 0;            // the union of its events
  CompileId id;              // from the compile_id annotations inside it
  int step = -1;             // the step it started in (index into Facts::steps), -1 outside any
};
// One call of a compiled region ("Torch-Compiled Region: F/R").
struct CompiledCall {
  EventId event = kNoEvent;
  CompileId id;
  int step = -1;
  // Input Dims of the first op with recorded shapes inside the call (record_shapes): what the
  // compiled code was given, whose change between calls makes Dynamo recompile. kNoName: none.
  NameId input_dims = kNoName;
};
// torch.compile and CUDA graphs in one step (same index as Facts::steps).
struct StepCompile {
  int64_t compile_ns = 0;          // compilations that started in the step
  uint32_t compilations = 0;
  uint32_t region_calls = 0;
  uint32_t graph_launches = 0;     // cudaGraphLaunch / hipGraphLaunch: CUDA graph replays
  uint32_t cudagraph_tree_events = 0;  // "cudagraphify…" events or cudagraph_trees.py frames: compiled code managing its CUDA graphs
  uint32_t kernel_launches = 0;    // launches of single kernels, copies and memsets (not graph launches)
};

struct CompileFacts {
  uint64_t compiled_regions = 0;    // "Torch-Compiled Region"
  uint64_t nested_regions = 0;      // a compiled region inside another: a graph break
  int64_t compiled_region_ns = 0;
  uint64_t cache_lookups = 0;       // "TorchDynamo Cache Lookup"
  int64_t cache_lookup_ns = 0;
  uint64_t graph_calls = 0;         // "## Call CompiledFxGraph ... ##"
  int64_t graph_call_ns = 0;
  int64_t wrapper_ns = 0;           // region time not inside the graph calls
  uint64_t triton_kernels = 0;      // kernel calls named triton_*
  int64_t triton_kernel_ns = 0;
  uint64_t compile_events = 0;      // Dynamo/Inductor compilation inside the window
  int64_t compile_ns = 0;
  std::vector<Compilation> compilations;  // in time order
  std::vector<CompiledCall> calls;        // every compiled-region call, in time order
  std::vector<StepCompile> per_step;      // one per Facts::steps entry
  uint64_t cudagraph_tree_events = 0;     // "cudagraphify…" or cudagraph_trees.py frames: compiled code that asks for CUDA graphs
  uint64_t graph_launches = 0;            // cudaGraphLaunch / hipGraphLaunch in the whole trace
  uint64_t captures = 0;                  // CUDA-graph captures: a StreamBeginCapture and its StreamEndCapture
  int64_t capture_ns = 0;                 // while any was in progress: their spans' union, within the window
};

// ---- profiler's own cost ----
struct ProfilerOverheadFacts {
  uint64_t buffer_requests = 0;     // "Activity Buffer Request"
  int64_t buffer_request_ns = 0;
  std::vector<EventId> events;
};

// ---- communication (comm.cpp) ----
// One NCCL/RCCL kernel and what its record_param_comms op says about it.
struct CollectiveCall {
  EventId kernel = kNoEvent;
  EventId op = kNoEvent;             // the record_param_comms op above its launch; kNoEvent when none
  CollectiveKind kind = CollectiveKind::Other;
  NameId group = kNoName;            // process group name; kNoName when the trace does not say
  int64_t seq = -1;                  // sequence number in the group, -1 when the trace does not say
  int32_t ranks = -1;                // group size (else distributedInfo's world_size), -1 when unknown
  int64_t bytes = -1;                // nccl-tests' message size S (max of in/out elements × dtype), -1 unknown
  int64_t link_ns = 0;               // the time S needs at the link's peak bus bandwidth; 0 when unknown
  int64_t exposed_ns = 0;            // of the kernel's time, when no compute (any stream, any step) ran
  int step = -1;                     // the step that launched it, -1 outside the steps
};
struct CommFacts {
  std::vector<CollectiveCall> calls;  // in kernel order (trace order)
  double link_bytes_per_s = 0;        // the GPU's link, one direction (link_peaks.hpp); 0 when unknown
  std::string link;                   // "NVLink 4"; empty when unknown
};
// A collective's bus bandwidth (nccl-tests' busBw) in bytes/s; 0 when its size or group is unknown.
double bus_bytes_per_s(const CollectiveCall& c, int64_t dur_ns);

// ---- blocks: the user's code as a tree (blocks.cpp) ----
enum class BlockKind : uint8_t {
  Annotation,  // record_function (user_annotation; a 2021 trace's block filed as an op)
  Module,      // nn.Module: X_n (with_modules)
  Function,    // a Python frame of the user's own code (with_stack): "model.py(42): forward"
};
std::string_view to_string(BlockKind k);  // "annotation", "module", "function"

// How GPU work launched on other threads came to be credited to a block (bits).
enum BlockAttribution : uint8_t {
  kOwnThread = 0,
  kForwardBackwardLink = 1,  // autograd's backward ops ("Fwd thread id"): run for the main thread's block open then
};

struct BlockRow {
  NameId name = kNoName;       // the event's name as written (searchable in the trace)
  BlockKind kind = BlockKind::Function;
  // The Python frame "file(line): func" that locates the block: a function's own frame, a
  // module's forward frame (kNoName without with_stack, and for annotations).
  NameId location = kNoName;
  bool user_code = true;       // false: a module whose forward is library code (torch.nn.Linear)
  uint32_t parent = UINT32_MAX;  // index into BlockFacts::rows; UINT32_MAX at the top
  uint32_t depth = 0;
  uint64_t calls = 0;
  int64_t cpu_total_ns = 0;    // sum of the calls' durations
  int64_t self_cpu_ns = 0;     // cpu_total_ns less the child blocks' (library frames and ops stay here)
  int64_t gpu_ns = 0;          // GPU work (kernels, copies, memsets) launched beneath it, every thread credited
  int64_t other_thread_gpu_ns = 0;  // the part of gpu_ns launched on other threads on its behalf
  uint64_t kernels = 0, launches = 0;
  CpuBreakdown cpu_breakdown{};  // self time of the events beneath it by Facts::cpu_category
  EventId longest_call = kNoEvent;
  EventId longest_kernel = kNoEvent;
  uint8_t attribution = kOwnThread;  // BlockAttribution bits
  // Autograd's backward ops run for the forward ops beneath it, on whatever thread ran them (linked
  // by their "Sequence number"): the outermost ones' time and count, the GPU work launched in them.
  int64_t backward_cpu_ns = 0, backward_gpu_ns = 0;
  uint64_t backward_ops = 0, backward_kernels = 0;
  // The most calls of one name directly beneath one call of it (ops and library frames, not child
  // blocks): a loop in the block's own code shows as one name repeated.
  uint32_t repeated_calls = 0;
  uint32_t threads = 0;  // the CPU threads its calls ran on: its CPU time is a share of that many threads' time
  uint32_t group = 0;    // index into BlockFacts::groups: the code it runs
};

// The rows that run one piece of code, summed: a module class (its instances, "Rotary_0" …
// "Rotary_3", wherever they sit in the tree), a record_function name, a Python function (file,
// line, name). A row inside another row of its group (recursion) is counted once, in the outer.
struct BlockGroup {
  std::string label;             // "Rotary", "forward", "model.py(42): rope"
  BlockKind kind = BlockKind::Function;
  NameId location = kNoName;     // as BlockRow::location
  bool user_code = true;
  std::vector<uint32_t> rows;    // its rows, in BlockFacts::rows order
  uint32_t instances = 0;        // distinct event names among its rows (module instances)
  BlockRow total;                // its rows summed (sum_rows), each row inside another of the group left out
};

// A library frame folded into a block (not a block of its own), kept so a block's own time can be
// traced into the library code it spends it in (the hotspot's "most of it in …").
struct LibraryFrameRow {
  NameId name = kNoName;
  uint32_t block = UINT32_MAX;   // the block row it is folded into
  uint32_t parent = UINT32_MAX;  // the library frame around it under the same block; UINT32_MAX: directly under the block
  uint64_t calls = 0;
  int64_t cpu_total_ns = 0;
  int64_t block_ns = 0;  // the part of cpu_total_ns in blocks it calls (a vLLM runner calling the model)
};

struct BlockFacts {
  std::vector<BlockRow> rows;  // depth first, parents before children, heavier siblings first
  std::vector<LibraryFrameRow> library_frames;  // parents before children
  std::vector<BlockGroup> groups;  // heaviest (CPU time) first
  // What the blocks are measured against: the steps (their summed duration, and the GPU work
  // launched in them from any thread), or a stepless trace's whole window.
  int64_t basis_cpu_ns = 0, basis_gpu_ns = 0;
  int64_t basis_backward_ns = 0;  // the outermost backward ops' time in the steps, linked to a block or not
  uint64_t annotation_events = 0, module_events = 0, python_frames = 0;
};

// ---- loops inside a step (loops.cpp): a step whose top-level work repeats, split into iterations ----
inline constexpr size_t kLoopOverWindow = SIZE_MAX;  // LoopFacts::step of a stepless trace's loop
// The iterations a loop keeps measured one by one; the medians count them all. A generate() of
// 10,000 tokens keeps every pass. A stepless trace of one name repeated 600,000 times is a loop of
// 600,000 one-event iterations: kept whole they took 206 MB (twice while measured), 212 MB of
// JSON rows and 1.17 GB in Python's tables, each saying nothing the medians do not. Past this
// many, what reads iterations (the CPU breakdown, the idle causes, the graph's replay, the
// verdicts over iterations) reads the first ones.
inline constexpr size_t kMaxLoopIterationsKept = 10'000;
struct LoopFacts {
  size_t step = 0;              // index into Facts::steps; kLoopOverWindow: the whole (stepless) trace
  TrackId thread = 0;           // the thread whose top-level work repeats
  EventId block = kNoEvent;     // whose children repeat: the step, or the one event filling it;
                                // kNoEvent: the thread's top-level events (a stepless trace)
  NameId marker = kNoName;      // the top-level event name that opens every iteration
  uint32_t period = 0;          // top-level events per iteration (the median of iterations 2..N)
  std::vector<StepFacts> iterations;  // measured like steps (start, end, cpu, sync wait, GPU busy, …);
                                      // the first kMaxLoopIterationsKept of them
  size_t iteration_count = 0;         // all of them
  int64_t end_ns = 0;                 // where the last of them ends
  // Iteration 1 may differ (a generate()'s prefill); the medians are over iterations 2..N.
  int64_t median_ns = 0, cpu_median_ns = 0, gpu_median_ns = 0;
  // Tokens from the shapes, for a prefill → decode loop only, 0 otherwise: the first aten::embedding's
  // indices [B, S] in iteration 1 give its B·S tokens; iteration 2's own embedding [B, S' < S] its
  // B·S', or, with no embedding on the host (a decode pass inside a compiled region or a CUDA
  // graph), one token per sequence: B.
  int64_t first_tokens = 0, tokens_per_iteration = 0;
  // A language model's forward passes, shapes or not: iterations 1 and 2 embed token ids
  // (aten::embedding), iteration 2 runs no backward, and shapes, where recorded, say prefill → decode.
  bool forward_passes = false;
};
// Tokens per second of the iterations after the first: tokens_per_iteration / median (0: unknown).
// A generate()'s loop: its tokens say prefill → decode, or its passes are a language model's forwards.
inline bool is_decode(const LoopFacts& l) { return l.first_tokens > 0 || l.forward_passes; }
// What a loop is inside: its step's name, or "whole trace".
inline std::string_view loop_scope(const std::vector<StepFacts>& steps, const LoopFacts& l) {
  return l.step == kLoopOverWindow ? std::string_view("whole trace") : std::string_view(steps[l.step].name);
}
// Whose children repeat, in words: the block's name, or "<thread>'s top level" for a stepless trace.
inline std::string loop_block_name(const Trace& t, const LoopFacts& l) {
  return l.block != kNoEvent ? std::string(t.name_of(l.block)) : t.tracks[l.thread].name + "'s top level";
}
inline double tokens_per_s(const LoopFacts& l) {
  if (l.tokens_per_iteration <= 0 || l.median_ns <= 0) return 0;
  return static_cast<double>(l.tokens_per_iteration) * 1e9 / static_cast<double>(l.median_ns);
}

// ---- eager attention (eager_attention.cpp): matmul → softmax → matmul over the same scores ----
struct EagerAttention {
  EventId qk = kNoEvent, softmax = kNoEvent, pv = kNoEvent;  // the ops of the first call
  std::vector<int64_t> scores_dims;  // as the softmax saw them: [B, H, Tq, Tk]
  Precision precision = Precision::Other;  // of Q
  uint64_t calls = 0;
  int64_t gpu_ns = 0;     // all calls: the kernels launched from the start of Q·Kᵀ to the end of P·V
  uint64_t kernels = 0;
  double scores_bytes = 0;  // one call's scores tensor
  double flops = 0;         // one call's two GEMMs: 2·N·Tq·Tk·(Dqk + Dv)
  double fused_bytes = 0;   // one call's Q, K, V read and output written: all a fused kernel must move
  // One call of a fused kernel at the roofline: max(flops / matrix peak, fused_bytes / bandwidth),
  // on the datasheet of the trace's GPU; 0 when it is not in the table.
  int64_t fused_floor_ns = 0;
};

// ---- memory (memory/memory.cpp): the allocators' records of profile_memory=True ----
// What an allocation live at a peak is, from when and by what it was allocated and freed.
enum class MemoryRole : uint8_t {
  Persistent,  // allocated before the step: parameters, optimizer state, anything kept across steps
  Activation,  // allocated in the step outside backward and freed by backward: saved for the backward pass
  Backward,    // allocated by an op autograd ran: gradients and backward temporaries
  Temporary,   // allocated in the step outside backward and freed in it, not by backward
  Kept,        // allocated in the step and still live when it ends
};
inline constexpr size_t kMemoryRoles = 5;
std::string_view to_string(MemoryRole r);  // "persistent", "activation", …

// One allocation live at a peak.
struct LiveAllocation {
  EventId alloc = kNoEvent;  // the [memory] record that allocated it
  EventId freed = kNoEvent;  // the record that freed it; kNoEvent: live at the end of the trace
  EventId op = kNoEvent;     // the innermost CPU op open on its thread when it was allocated
  EventId block = kNoEvent;  // the innermost record_function block (not a ProfilerStep) around it
  int64_t bytes = 0;
  MemoryRole role = MemoryRole::Persistent;
};

// One device in one step (Facts::steps order).
struct StepMemory {
  int64_t peak_allocated = -1, peak_reserved = -1;  // the largest totals in the step (incl. at its start)
  int64_t peak_at_ns = 0;                           // when the allocated peak was reached
  int64_t start_allocated = -1, end_allocated = -1;  // allocated when the step starts and ends
  bool recorded = false;                            // a record falls in the step
};

// One allocator: a (device type, device id) pair.
struct DeviceMemory {
  int32_t device_type = -1, device_id = -1;  // c10::DeviceType (0 CPU, 1 CUDA) and index
  uint64_t records = 0, allocations = 0, frees = 0;
  int64_t peak_allocated = -1, peak_reserved = -1;  // over the trace
  int64_t peak_at_ns = 0;
  EventId peak_event = kNoEvent;
  std::vector<StepMemory> steps;  // one per Facts::steps entry
  // The allocations live at the peak that is reported: the step with the largest allocated peak,
  // or the trace's peak without steps; largest first.
  int peak_step = -1;                   // that step (-1: the whole trace)
  int64_t live_peak_allocated = -1;     // the allocated total there
  int64_t live_peak_at_ns = 0;
  std::vector<LiveAllocation> live_at_peak;
  int64_t live_bytes = 0;                                 // their sum
  std::array<int64_t, kMemoryRoles> live_bytes_by_role{};  // by MemoryRole
  // Records the trace contradicts itself in: a free of an address with nothing live there, a
  // "Total Allocated" that is not the previous total plus Bytes, a negative total.
  uint64_t unmatched_frees = 0, total_mismatches = 0, negative_totals = 0;
  // Records left out, not counted in `records`: a Bytes, Total Allocated or Total Reserved beyond
  // ±kMaxMemoryBytes, or one that would take the allocated total or the live bytes there.
  uint64_t out_of_range_records = 0;
  // The totals over time for a chart: at most kMemoryCurvePoints points {ns, allocated, reserved},
  // each the largest totals in its stretch of the trace (so no peak is lost), in time order.
  std::vector<std::array<int64_t, 3>> curve;
};
inline constexpr size_t kMemoryCurvePoints = 1024;
// The most bytes an allocator record may speak of: 2^50 (1 PiB). The largest GPU holds 141 GB
// (H200) and the largest hosts a few TiB, so no real record comes near; a hostile one beyond it
// (Bytes of -2^63, a Total Allocated near INT64_MAX) would wrap the sums around ("peaks at
// -8388608 TiB"), and any two values within it add up without overflow.
inline constexpr int64_t kMaxMemoryBytes = int64_t{1} << 50;

struct MemoryFacts {
  std::vector<DeviceMemory> devices;  // GPUs first (by id), then the CPU
};

// What the profiler recorded (recording/recording.cpp), decided before any rule reads the trace:
// whether it can speak of the GPU at all.
enum class Recorded : uint8_t {
  Nothing,         // no op, block, step, Python frame, GPU-work call or GPU record: the profiler ran around nothing
  CpuOnly,         // CPU work and no call that puts work on a GPU: a program that ran on the CPU
  GpuNotRecorded,  // calls that put work on the GPU (launches, copies, memsets), or CPU work that synchronizes
                   // with it, but no record of the GPU's work
  Gpu,             // kernel, copy or memset records
};
std::string_view to_string(Recorded r);  // "nothing", "cpu_only", "gpu_not_recorded", "gpu"

// Matrix ops whose recorded shapes give more FLOPs per second of their CPU time than any CPU
// computes (recording/beyond_cpu.cpp): the work ran on a GPU the trace holds no record of.
struct BeyondCpuFacts {
  std::string op;            // the op name with the highest rate; empty when no op is beyond a CPU
  uint64_t calls = 0;        // its calls with shapes and a duration
  double flops_per_call = 0;  // mean
  int64_t mean_ns = 0;       // the calls' mean duration on the CPU
  double flops_per_s = 0;    // their FLOPs over their CPU time
  double ceiling_flops_per_s = 0;  // the most any CPU computes in the op's precision
  std::string precision;     // "fp32", "bf16", …
  std::string formula;       // one call's, for people: "2·M·N·K = 2·4096·4096·4096"
};

struct RecordingFacts {
  Recorded what = Recorded::Nothing;
  uint64_t cpu_ops = 0;         // ATen ops (cpu_op)
  uint64_t annotations = 0;     // user annotations: record_function blocks, ProfilerStep#N, scopes
  uint64_t python_frames = 0;   // python_function (with_stack)
  uint64_t gpu_work_calls = 0;  // runtime/driver calls that put work on a GPU (is_gpu_work_call)
  uint64_t gpu_sync_calls = 0;  // runtime/driver calls that wait for the GPU (is_sync_call)
  uint64_t gpu_records = 0;     // kernels, copies, memsets
  uint64_t gpu_only_ops = 0;    // ops and blocks that run only with a GPU (is_gpu_only_op)
  std::string gpu_only_op;      // the first of them by name, to quote
  std::string gpu_backend;      // distributedInfo's backend when it runs only on GPUs (nccl), else ""
  bool from_torch = false;      // ATen ops or Python frames: torch.profiler, not a native program's scopes
  BeyondCpuFacts beyond_cpu;    // looked for only in a trace that would otherwise read as CPU-only
};

struct Facts {
  RecordingFacts recording;
  std::vector<StepFacts> steps;
  std::vector<OpRow> ops;
  std::vector<KernelRow> kernels;
  std::vector<AnnotationRow> annotations;
  LaunchFacts launches;
  SyncFacts syncs;
  CopyFacts copies;
  ColdStartFacts cold_start;
  FirstCallFacts first_calls;
  CompileFacts compile;
  ProfilerOverheadFacts profiler;
  RooflineFacts roofline;   // one entry per kernel row, plus the GPUs' ceilings
  StepFacts window;         // the whole trace measured like one step
  // A trace without steps that has a start-up stretch (cold_start.startup_end_ns): the window
  // after it, which steady_steps() uses instead of `window`. duration_ns 0 when there is none.
  StepFacts steady_window;
  TrackId window_thread = UINT32_MAX;  // the main thread whose CPU time `window` breaks down
  std::vector<CpuCategory> cpu_category;  // per event: where its self time counts (Other off the steps' threads)
  int64_t gpu_busy_ns = 0;  // union of all GPU activity in the trace
  CommFacts comm;
  BlockFacts blocks;        // the user's code as a tree: record_function, nn.Module, Python frames
  std::vector<LoopFacts> loops;  // at most one per step, in step order; a stepless trace: at most one
  std::vector<EagerAttention> eager_attention;  // by scores shape, largest GPU time first
  MemoryFacts memory;
  GraphFacts graph;         // the dependency graph: steps replayed, critical paths, what-ifs (graph/)
};

// Runs every analysis pass in order.
struct AnalyzeOptions {
  const Ceilings* measured = nullptr;  // --peaks: measured ceilings besides the datasheet's
};
Facts analyze(const Trace& trace, const AnalyzeOptions& options = {});

}  // namespace whyslow
