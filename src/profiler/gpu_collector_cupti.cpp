// GPU activity through CUPTI's Activity API, the way Kineto collects it: CUPTI fills buffers we
// hand it, and each completed buffer is parsed at once into plain records (gpu_records.hpp).
//
// Set up once per process, before any activity kind is enabled:
//  - timestamps come from the profiler's Clock, so CUDA calls and scopes share one clock;
//  - thread ids are the OS ones (gettid), as the scopes record them.
// Kinds: kernels (concurrent), memcpy, memset, runtime and driver API, synchronization, CUDA
// events (to say which stream recorded the event a sync waits on), and CUPTI's overhead.
#include <cuda_occupancy.h>
#include <cuda_runtime_api.h>
#include <cupti.h>
#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "profiler/clock.hpp"
#include "profiler/gpu_collector.hpp"
#include "profiler/warnings.hpp"

namespace whyslow::profiler_detail {
namespace {

constexpr size_t kBufferBytes = 8 << 20;

// Runtime calls that launch nothing and that libraries make thousands of times per step
// (Kineto leaves the same ones out).
constexpr std::string_view kIgnoredRuntimeCalls[] = {"cudaGetDevice", "cudaSetDevice",
                                                      "cudaGetLastError", "cudaPeekAtLastError"};

// The kinds whyslow needs; collection is off without them.
constexpr CUpti_ActivityKind kRequiredKinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
                                                 CUPTI_ACTIVITY_KIND_RUNTIME};
// The kinds that enrich the trace; a CUPTI that lacks one still gives the rest.
constexpr CUpti_ActivityKind kOptionalKinds[] = {
    CUPTI_ACTIVITY_KIND_DRIVER,          CUPTI_ACTIVITY_KIND_MEMCPY,
    CUPTI_ACTIVITY_KIND_MEMSET,          CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,
    CUPTI_ACTIVITY_KIND_CUDA_EVENT,      CUPTI_ACTIVITY_KIND_OVERHEAD};

struct EventRecord {
  uint32_t stream = 0;
  uint32_t correlation = 0;
};

// What the buffer callbacks have parsed so far. CUPTI calls them from its own thread.
struct Store {
  std::mutex mutex;
  GpuRecords records;
  std::unordered_map<const char*, uint32_t> kernel_names;   // CUPTI's name pointer → id
  std::map<std::pair<int, uint32_t>, uint32_t> api_names;   // (driver?, cbid) → id, or ignored
  std::unordered_map<uint64_t, EventRecord> event_records;  // cudaEventSyncId → its record
  std::unordered_map<uint32_t, uint32_t> context_device;
};
Store& store() {
  static Store* s = new Store;  // CUPTI may call back during static destruction
  return *s;
}

constexpr uint32_t kIgnoredName = UINT32_MAX;

std::string result_text(CUptiResult r) {
  const char* text = nullptr;
  if (cuptiGetResultString(r, &text) != CUPTI_SUCCESS || text == nullptr) return std::to_string(r);
  return text;
}

uint64_t CUPTIAPI profiler_timestamp() { return static_cast<uint64_t>(Clock::get().now_ns()); }

// "cudaLaunchKernel_v7000" → "cudaLaunchKernel". Only long version tags are CUPTI's: "_v2" is
// part of driver API names such as cuMemcpyHtoD_v2.
std::string api_name(bool driver, uint32_t cbid) {
  const char* raw = nullptr;
  const auto domain = driver ? CUPTI_CB_DOMAIN_DRIVER_API : CUPTI_CB_DOMAIN_RUNTIME_API;
  if (cuptiGetCallbackName(domain, cbid, &raw) != CUPTI_SUCCESS || raw == nullptr)
    return driver ? "cuUnknown" : "cudaUnknown";
  std::string name = raw;
  const size_t v = name.rfind("_v");
  if (v != std::string::npos && name.size() - v >= 6 &&
      std::all_of(name.begin() + static_cast<std::ptrdiff_t>(v + 2), name.end(),
                  [](char c) { return c >= '0' && c <= '9'; }))
    name.resize(v);
  return name;
}

std::string demangle(const char* name) {
  if (name == nullptr) return "<unnamed kernel>";
  int status = 0;
  char* plain = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  if (status != 0 || plain == nullptr) return name;
  std::string result = plain;
  std::free(plain);
  return result;
}

std::string_view copy_kind(uint8_t k) {
  switch (k) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD: return "HtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH: return "DtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA: return "HtoA";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH: return "AtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA: return "AtoA";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD: return "AtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA: return "DtoA";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD: return "DtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH: return "HtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP: return "PtoP";
    default: return "Unknown";
  }
}

std::string_view memory_kind(unsigned k) {
  switch (k) {
    case CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE: return "Pageable";
    case CUPTI_ACTIVITY_MEMORY_KIND_PINNED: return "Pinned";
    case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE: return "Device";
    case CUPTI_ACTIVITY_MEMORY_KIND_ARRAY: return "Array";
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED: return "Managed";
    case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE_STATIC: return "Device Static";
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED_STATIC: return "Managed Static";
    default: return "Unknown";
  }
}

std::string_view sync_kind(CUpti_ActivitySynchronizationType t) {
  switch (t) {
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE: return "Event Sync";
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT: return "Stream Wait Event";
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE: return "Stream Sync";
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE: return "Context Sync";
    default: return "Unknown Sync";
  }
}

// Kineto's names for CUPTI's overhead kinds; whyslow's cold-start analysis reads three of them.
std::string_view overhead_name(CUpti_ActivityOverheadKind k) {
  switch (k) {
    case CUPTI_ACTIVITY_OVERHEAD_DRIVER_COMPILER: return "Driver Compiler";
    case CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH: return "Buffer Flush";
    case CUPTI_ACTIVITY_OVERHEAD_CUPTI_INSTRUMENTATION: return "Instrumentation";
    case CUPTI_ACTIVITY_OVERHEAD_CUPTI_RESOURCE: return "Resource";
    case CUPTI_ACTIVITY_OVERHEAD_RUNTIME_TRIGGERED_MODULE_LOADING: return "Runtime Triggered Module Loading";
    case CUPTI_ACTIVITY_OVERHEAD_LAZY_FUNCTION_LOADING: return "Lazy Function Loading";
    case CUPTI_ACTIVITY_OVERHEAD_COMMAND_BUFFER_FULL: return "Command Buffer Full";
    case CUPTI_ACTIVITY_OVERHEAD_ACTIVITY_BUFFER_REQUEST: return "Activity Buffer Request";
    case CUPTI_ACTIVITY_OVERHEAD_UVM_ACTIVITY_INIT: return "UVM Activity Init";
    default: return "Unknown";
  }
}

// ---- parsing one record (under the store's lock) ----

void add_api_call(Store& s, const CUpti_ActivityAPI& a, bool driver) {
  auto [it, inserted] = s.api_names.try_emplace({driver ? 1 : 0, a.cbid}, 0);
  if (inserted) {
    const std::string name = api_name(driver, a.cbid);
    const bool ignored =
        !driver && std::find(std::begin(kIgnoredRuntimeCalls), std::end(kIgnoredRuntimeCalls),
                             name) != std::end(kIgnoredRuntimeCalls);
    it->second = ignored ? kIgnoredName : s.records.names.intern(name);
  }
  if (it->second == kIgnoredName) return;
  ApiCall call;
  call.start_ns = static_cast<int64_t>(a.start);
  call.end_ns = static_cast<int64_t>(a.end);
  call.name = it->second;
  call.cbid = a.cbid;
  call.correlation = a.correlationId;
  call.tid = static_cast<int32_t>(a.threadId);
  call.driver = driver;
  s.records.api_calls.push_back(call);
}

void add_kernel(Store& s, const CUpti_ActivityKernel10& k) {
  auto [it, inserted] = s.kernel_names.try_emplace(k.name, 0);
  if (inserted) it->second = s.records.names.intern(demangle(k.name));
  GpuActivity g;
  g.kind = GpuKind::Kernel;
  g.start_ns = static_cast<int64_t>(k.start);
  g.end_ns = static_cast<int64_t>(k.end);
  g.name = it->second;
  g.device = k.deviceId;
  g.context = k.contextId;
  g.stream = k.streamId;
  g.correlation = k.correlationId;
  g.grid[0] = k.gridX, g.grid[1] = k.gridY, g.grid[2] = k.gridZ;
  g.block[0] = k.blockX, g.block[1] = k.blockY, g.block[2] = k.blockZ;
  g.registers = k.registersPerThread;
  g.shared_memory = k.staticSharedMemory + k.dynamicSharedMemory;
  g.graph_id = k.graphId;
  g.graph_node_id = k.graphNodeId;
  g.static_shared_memory = k.staticSharedMemory;
  s.context_device[k.contextId] = k.deviceId;
  s.records.activities.push_back(g);
}

// The fields memcpy and memset records share, and the store; `g` already has kind, times, name.
template <typename Record>
void add_copy_like(Store& s, GpuActivity& g, const Record& m) {
  g.device = m.deviceId;
  g.context = m.contextId;
  g.stream = m.streamId;
  g.correlation = m.correlationId;
  g.bytes = m.bytes;
  g.graph_id = m.graphId;
  g.graph_node_id = m.graphNodeId;
  s.context_device[m.contextId] = m.deviceId;
  s.records.activities.push_back(g);
}

void add_memcpy(Store& s, const CUpti_ActivityMemcpy6& m) {
  GpuActivity g;
  g.kind = GpuKind::Memcpy;
  g.start_ns = static_cast<int64_t>(m.start);
  g.end_ns = static_cast<int64_t>(m.end);
  g.name = s.records.names.intern("Memcpy " + std::string(copy_kind(m.copyKind)) + " (" +
                                  std::string(memory_kind(m.srcKind)) + " -> " +
                                  std::string(memory_kind(m.dstKind)) + ")");
  add_copy_like(s, g, m);
}

void add_memset(Store& s, const CUpti_ActivityMemset4& m) {
  GpuActivity g;
  g.kind = GpuKind::Memset;
  g.start_ns = static_cast<int64_t>(m.start);
  g.end_ns = static_cast<int64_t>(m.end);
  g.name = s.records.names.intern("Memset (" + std::string(memory_kind(m.memoryKind)) + ")");
  add_copy_like(s, g, m);
}

void add_sync(Store& s, const CUpti_ActivitySynchronization2& y) {
  GpuActivity g;
  g.kind = GpuKind::Sync;
  g.start_ns = static_cast<int64_t>(y.start);
  g.end_ns = static_cast<int64_t>(y.end);
  g.name = s.records.names.intern(sync_kind(y.type));
  g.context = y.contextId;  // the device is resolved from the context in finish()
  g.stream = y.streamId == CUPTI_SYNCHRONIZATION_INVALID_VALUE ? -1 : static_cast<int64_t>(y.streamId);
  g.correlation = y.correlationId;
  if (y.cudaEventId != CUPTI_SYNCHRONIZATION_INVALID_VALUE) {
    g.event_id = y.cudaEventId;
    // Resolved against the event records in finish(): the record may come in a later buffer.
    g.event_sync_id = y.cudaEventSyncId;
  }
  s.records.activities.push_back(g);
}

void add_record(Store& s, const CUpti_Activity* r) {
  switch (r->kind) {
    case CUPTI_ACTIVITY_KIND_RUNTIME:
      add_api_call(s, *reinterpret_cast<const CUpti_ActivityAPI*>(r), false);
      break;
    case CUPTI_ACTIVITY_KIND_DRIVER:
      add_api_call(s, *reinterpret_cast<const CUpti_ActivityAPI*>(r), true);
      break;
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
      add_kernel(s, *reinterpret_cast<const CUpti_ActivityKernel10*>(r));
      break;
    case CUPTI_ACTIVITY_KIND_MEMCPY:
      add_memcpy(s, *reinterpret_cast<const CUpti_ActivityMemcpy6*>(r));
      break;
    case CUPTI_ACTIVITY_KIND_MEMSET:
      add_memset(s, *reinterpret_cast<const CUpti_ActivityMemset4*>(r));
      break;
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
      add_sync(s, *reinterpret_cast<const CUpti_ActivitySynchronization2*>(r));
      break;
    case CUPTI_ACTIVITY_KIND_CUDA_EVENT: {
      const auto& e = *reinterpret_cast<const CUpti_ActivityCudaEvent2*>(r);
      s.event_records[e.cudaEventSyncId] = {e.streamId, e.correlationId};
      break;
    }
    case CUPTI_ACTIVITY_KIND_OVERHEAD: {
      const auto& o = *reinterpret_cast<const CUpti_ActivityOverhead3*>(r);
      s.records.overheads.push_back({static_cast<int64_t>(o.start), static_cast<int64_t>(o.end),
                                     s.records.names.intern(overhead_name(o.overheadKind))});
      break;
    }
    default: break;
  }
}

// CUPTI's buffers, reused. A fresh buffer's pages fault in while CUPTI fills it, milliseconds
// that land in someone's step as "Activity Buffer Request"; the warm-up touches a few buffers
// so that the recorded steps get warm ones.
class BufferPool {
 public:
  uint8_t* take() {
    {
      std::lock_guard lock(mutex_);
      if (!free_.empty()) {
        uint8_t* b = free_.back();
        free_.pop_back();
        return b;
      }
    }
    return static_cast<uint8_t*>(std::aligned_alloc(ACTIVITY_RECORD_ALIGNMENT, kBufferBytes));
  }
  void give_back(uint8_t* buffer) {
    std::lock_guard lock(mutex_);
    if (free_.size() < kKeptBuffers) free_.push_back(buffer);
    else std::free(buffer);
  }
  // Makes sure `count` buffers with every page touched wait in the pool.
  void warm(size_t count) {
    std::lock_guard lock(mutex_);
    while (free_.size() < count) {
      auto* b = static_cast<uint8_t*>(std::aligned_alloc(ACTIVITY_RECORD_ALIGNMENT, kBufferBytes));
      if (b == nullptr) return;
      std::memset(b, 0, kBufferBytes);
      free_.push_back(b);
    }
  }

 private:
  static constexpr size_t kKeptBuffers = 4;
  std::mutex mutex_;
  std::vector<uint8_t*> free_;
};
BufferPool& buffer_pool() {
  static BufferPool* pool = new BufferPool;  // CUPTI may call back during static destruction
  return *pool;
}

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = buffer_pool().take();
  *size = *buffer ? kBufferBytes : 0;
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext context, uint32_t stream, uint8_t* buffer, size_t,
                               size_t valid_bytes) {
  Store& s = store();
  {
    std::lock_guard lock(s.mutex);
    CUpti_Activity* record = nullptr;
    while (cuptiActivityGetNextRecord(buffer, valid_bytes, &record) == CUPTI_SUCCESS)
      add_record(s, record);
    size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(context, stream, &dropped) == CUPTI_SUCCESS)
      s.records.dropped_records += dropped;
  }
  buffer_pool().give_back(buffer);
}

// ---- set-up ----

struct Setup {
  std::string error;             // why collection cannot run at all
  bool own_timestamps = false;   // CUPTI reads the profiler's Clock
};

const Setup& setup() {
  static const Setup once = [] {
    Setup s;
    int devices = 0;
    if (const cudaError_t e = cudaGetDeviceCount(&devices); e != cudaSuccess) {
      s.error = std::string("no usable CUDA device (cudaGetDeviceCount: ") + cudaGetErrorString(e) + ")";
      return s;
    }
    if (devices == 0) {
      s.error = "no CUDA device";
      return s;
    }
    if (CUptiResult r = cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM); r != CUPTI_SUCCESS) {
      s.error = "CUPTI could not report OS thread ids (" + result_text(r) + ")";
      return s;
    }
    s.own_timestamps = cuptiActivityRegisterTimestampCallback(profiler_timestamp) == CUPTI_SUCCESS;
    if (CUptiResult r = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed); r != CUPTI_SUCCESS)
      s.error = "CUPTI refused its activity buffers (" + result_text(r) + ")";
    return s;
  }();
  return once;
}

std::set<CUpti_ActivityKind>& enabled_kinds() {
  static std::set<CUpti_ActivityKind> kinds;
  return kinds;
}

void disable_all() {
  for (CUpti_ActivityKind k : enabled_kinds()) cuptiActivityDisable(k);
  enabled_kinds().clear();
}

void clear_store() {
  Store& s = store();
  std::lock_guard lock(s.mutex);
  s.records = GpuRecords{};
  s.kernel_names.clear();
  s.api_names.clear();
  s.event_records.clear();
  s.context_device.clear();
}

DeviceProperties device_properties(int id) {
  DeviceProperties d;
  d.id = id;
  cudaDeviceProp p{};
  if (cudaGetDeviceProperties(&p, id) != cudaSuccess) return d;
  d.name = p.name;
  d.total_global_mem = p.totalGlobalMem;
  d.compute_major = p.major;
  d.compute_minor = p.minor;
  d.max_threads_per_block = p.maxThreadsPerBlock;
  d.max_threads_per_multiprocessor = p.maxThreadsPerMultiProcessor;
  d.regs_per_block = p.regsPerBlock;
  d.warp_size = p.warpSize;
  d.shared_mem_per_block = p.sharedMemPerBlock;
  d.num_sms = p.multiProcessorCount;
  d.regs_per_multiprocessor = p.regsPerMultiprocessor;
  d.shared_mem_per_block_optin = p.sharedMemPerBlockOptin;
  d.shared_mem_per_multiprocessor = p.sharedMemPerMultiprocessor;
  return d;
}

// Percent of the SM's thread slots this launch fills: its blocks per SM, capped by what the
// occupancy calculator says fits, times the block size, over the SM's thread limit.
int occupancy_percent(const GpuActivity& k, const cudaDeviceProp& props) {
  const int block = k.block[0] * k.block[1] * k.block[2];
  if (block <= 0 || props.multiProcessorCount <= 0 || props.maxThreadsPerMultiProcessor <= 0) return -1;
  cudaOccFuncAttributes attributes;
  attributes.maxThreadsPerBlock = INT_MAX;
  attributes.numRegs = k.registers;
  attributes.sharedSizeBytes = static_cast<size_t>(k.static_shared_memory);
  const auto dynamic_shared = static_cast<size_t>(k.shared_memory - k.static_shared_memory);
  attributes.maxDynamicSharedSizeBytes = dynamic_shared;
  attributes.numBlockBarriers = 1;  // __syncthreads' barrier; the calculator's documented default
  const cudaOccDeviceProp occupancy_props(props);
  const cudaOccDeviceState state;
  cudaOccResult result{};
  if (cudaOccMaxActiveBlocksPerMultiprocessor(&result, &occupancy_props, &attributes, &state, block,
                                              dynamic_shared) != CUDA_OCC_SUCCESS)
    return -1;
  const double blocks = static_cast<double>(k.grid[0]) * k.grid[1] * k.grid[2];
  const double resident = std::min(blocks / props.multiProcessorCount,
                                   static_cast<double>(result.activeBlocksPerMultiprocessor));
  return static_cast<int>(100.0 * resident * block / props.maxThreadsPerMultiProcessor + 0.5);
}

// Blocks until the GPU work queued so far is done, on every device the window used, as torch
// does before it stops collecting; restores the caller's current device.
void synchronize_devices(const std::set<uint32_t>& devices) {
  int current = 0;
  if (cudaGetDevice(&current) != cudaSuccess) return;
  cudaDeviceSynchronize();
  for (uint32_t d : devices) {
    if (static_cast<int>(d) == current || cudaSetDevice(static_cast<int>(d)) != cudaSuccess) continue;
    cudaDeviceSynchronize();
  }
  cudaSetDevice(current);
}

}  // namespace

std::string enable_gpu_collection() {
  const Setup& s = setup();
  if (!s.error.empty()) return s.error;
  for (CUpti_ActivityKind k : kRequiredKinds) {
    if (enabled_kinds().count(k)) continue;
    if (CUptiResult r = cuptiActivityEnable(k); r != CUPTI_SUCCESS) {
      disable_all();
      // The usual cause: another CUPTI client (Nsight Systems, a second profiler) holds it.
      return "CUPTI could not collect activity kind " + std::to_string(k) + " (" + result_text(r) + ")";
    }
    enabled_kinds().insert(k);
  }
  for (CUpti_ActivityKind k : kOptionalKinds)
    if (!enabled_kinds().count(k) && cuptiActivityEnable(k) == CUPTI_SUCCESS) enabled_kinds().insert(k);
  buffer_pool().warm(2);
  return {};
}

void discard_gpu_records() {
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  clear_store();
}

GpuRecords finish_gpu_collection(int64_t window_start_ns, int64_t window_end_ns) {
  Store& s = store();
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  std::set<uint32_t> devices;
  bool launched = false;
  {
    std::lock_guard lock(s.mutex);
    for (const ApiCall& c : s.records.api_calls) launched |= c.start_ns >= window_start_ns;
    for (const GpuActivity& g : s.records.activities) devices.insert(g.device);
  }
  if (launched) {
    synchronize_devices(devices);
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  }
  disable_all();

  GpuRecords all;
  std::unordered_map<uint64_t, EventRecord> event_records;
  std::unordered_map<uint32_t, uint32_t> context_device;
  {
    std::lock_guard lock(s.mutex);
    all = std::move(s.records);
    event_records = std::move(s.event_records);
    context_device = std::move(s.context_device);
  }
  clear_store();

  // Without the timestamp callback CUPTI stamps with its own clock: shift onto ours.
  int64_t shift = 0;
  if (!setup().own_timestamps) {
    uint64_t cupti_now = 0;
    if (cuptiGetTimestamp(&cupti_now) == CUPTI_SUCCESS)
      shift = Clock::get().now_ns() - static_cast<int64_t>(cupti_now);
  }

  GpuRecords out;
  out.names = std::move(all.names);
  out.dropped_records = all.dropped_records;
  std::unordered_set<uint32_t> kept_calls, dropped_calls;
  for (ApiCall c : all.api_calls) {
    c.start_ns += shift;
    c.end_ns += shift;
    const bool in_window = c.start_ns >= window_start_ns && c.start_ns <= window_end_ns;
    (in_window ? kept_calls : dropped_calls).insert(c.correlation);
    if (in_window) out.api_calls.push_back(c);
  }
  std::set<int> used_devices;
  for (GpuActivity g : all.activities) {
    g.start_ns += shift;
    g.end_ns += shift;
    // GPU work belongs to the window its launch was made in; work with no recorded launch (the
    // driver launched it) is kept when it ran inside the window.
    const bool keep = kept_calls.count(g.correlation) ||
                      (!dropped_calls.count(g.correlation) && g.start_ns >= window_start_ns &&
                       g.start_ns <= window_end_ns);
    if (!keep) continue;
    if (g.kind == GpuKind::Sync) {
      if (auto it = context_device.find(g.context); it != context_device.end()) g.device = it->second;
      if (g.event_id != UINT32_MAX) {
        if (auto it = event_records.find(g.event_sync_id); it != event_records.end()) {
          g.wait_on_stream = it->second.stream;
          g.wait_on_event_correlation = it->second.correlation;
        }
      }
    }
    used_devices.insert(static_cast<int>(g.device));
    out.activities.push_back(g);
  }
  for (GpuOverhead o : all.overheads) {
    o.start_ns += shift;
    o.end_ns += shift;
    if (o.end_ns >= window_start_ns && o.start_ns <= window_end_ns) out.overheads.push_back(o);
  }

  std::map<int, cudaDeviceProp> props;
  for (int d : used_devices) {
    out.devices.push_back(device_properties(d));
    cudaGetDeviceProperties(&props[d], d);
  }
  for (GpuActivity& g : out.activities) {
    if (g.kind != GpuKind::Kernel) continue;
    g.occupancy_percent = occupancy_percent(g, props[static_cast<int>(g.device)]);
  }
  cuptiGetVersion(&out.cupti_version);
  cudaRuntimeGetVersion(&out.cuda_runtime_version);
  cudaDriverGetVersion(&out.cuda_driver_version);
  if (out.dropped_records > 0)
    warn_once("cupti-dropped-records",
              "CUPTI dropped " + std::to_string(out.dropped_records) +
                  " activity records (its buffers filled faster than they were read): the "
                  "trace misses some GPU activity");
  return out;
}

}  // namespace whyslow::profiler_detail
