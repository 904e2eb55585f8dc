// Matrix products that no CPU could have computed in the time their ops took: a trace of a GPU
// program recorded without CUDA activity (nor its CUDA calls) holds only the CPU ops, whose
// durations are the launches' (tens of µs), while their shapes still give the work (4096×4096 fp32
// matmuls: 137 GFLOP in 70 µs is 2 PFLOP/s). Read as CPU-only, such a trace would get CPU advice
// for work the GPU did; the rate says where it ran, from the trace alone.
#include <map>
#include <string>

#include "analysis/passes.hpp"
#include "analysis/roofline/op_cost.hpp"

namespace whyslow {
namespace {

// The most any CPU computes per second, per precision, with a factor of 2 to spare over the
// largest two-socket servers' datasheet peaks, so no real CPU run is ever called a GPU's:
// - fp64 and fp32 (tf32 runs as fp32 on a CPU): two 192-core AMD EPYC 9965 (Zen 5, two 512-bit FMA
//   pipes: 64 fp32 FLOP per cycle per core) at 2.25 GHz ≈ 55 TFLOP/s fp32 → 100 TFLOP/s;
// - fp16, bf16, fp8, int8 and others: two 128-core Intel Xeon 6980P with AMX (1024 bf16 FLOP, 2048
//   int8 ops per cycle per core) at 2 GHz ≈ 0.5 PFLOP/s bf16, 1 POP/s int8 → 2 PFLOP/s.
constexpr double kCpuCeilingWide = 100e12;
constexpr double kCpuCeilingNarrow = 2e15;

double cpu_ceiling(Precision p) {
  return p == Precision::FP64 || p == Precision::FP32 || p == Precision::TF32 ? kCpuCeilingWide : kCpuCeilingNarrow;
}

struct PerOp {
  uint64_t calls = 0;
  double flops = 0;
  int64_t ns = 0;
  Precision precision = Precision::Other;
  std::string formula;
};

}  // namespace

BeyondCpuFacts beyond_cpu(const Trace& t) {
  OpModelCache models(t);
  // Per op name: nested ops (aten::matmul over aten::mm) are rated each on its own time.
  std::map<NameId, PerOp> ops;
  for (EventId e = 0; e < t.size(); ++e) {
    if (t.kind[e] != EventKind::CpuOp || t.detail[e] == UINT32_MAX || t.dur_ns[e] <= 0) continue;
    const ModelledOp& m = models.of(e);
    if (!m.model.ok || m.model.cost.unit != MathUnit::Matrix || m.model.cost.flops <= 0) continue;
    PerOp& p = ops[t.name[e]];
    if (p.calls++ == 0) {
      p.precision = m.model.cost.precision;
      p.formula = m.model.cost.formula;
    }
    p.flops += m.model.cost.flops;
    p.ns += t.dur_ns[e];
  }
  BeyondCpuFacts out;
  double worst = 1;  // the rate over the ceiling: above 1, beyond any CPU
  for (const auto& [name, p] : ops) {
    const double rate = p.flops / (static_cast<double>(p.ns) * 1e-9);
    const double over = rate / cpu_ceiling(p.precision);
    if (over <= worst) continue;
    worst = over;
    out = {.op = std::string(t.names.view(name)),
           .calls = p.calls,
           .flops_per_call = p.flops / static_cast<double>(p.calls),
           .mean_ns = p.ns / static_cast<int64_t>(p.calls),
           .flops_per_s = rate,
           .ceiling_flops_per_s = cpu_ceiling(p.precision),
           .precision = std::string(to_string(p.precision)),
           .formula = p.formula};
  }
  return out;
}

}  // namespace whyslow
