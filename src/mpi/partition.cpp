#include "mpi/partition.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace whyslow::mpi {

std::vector<std::vector<std::size_t>> partition_by_size(const std::vector<std::uint64_t>& sizes, int processes) {
  if (processes < 1) throw std::invalid_argument("partition_by_size: at least one process");
  std::vector<std::size_t> order(sizes.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  // Largest first; equal sizes keep file order, so every process computes the same split.
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return sizes[a] > sizes[b]; });
  std::vector<std::vector<std::size_t>> parts(static_cast<std::size_t>(processes));
  std::vector<std::uint64_t> load(parts.size(), 0);
  for (const std::size_t file : order) {
    const auto lightest = static_cast<std::size_t>(std::min_element(load.begin(), load.end()) - load.begin());
    parts[lightest].push_back(file);
    load[lightest] += sizes[file];
  }
  for (auto& p : parts) std::sort(p.begin(), p.end());
  return parts;
}

}  // namespace whyslow::mpi
