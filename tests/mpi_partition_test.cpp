// How whyslow-mpi splits rank files over processes (src/mpi/partition.cpp): every file once,
// balanced by bytes, the same split on every process.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "mpi/partition.hpp"

namespace whyslow::mpi {
namespace {

std::uint64_t bytes_of(const std::vector<std::size_t>& files, const std::vector<std::uint64_t>& sizes) {
  std::uint64_t total = 0;
  for (const std::size_t f : files) total += sizes[f];
  return total;
}

TEST(MpiPartition, EveryFileExactlyOnceInAscendingOrder) {
  const std::vector<std::uint64_t> sizes = {5, 9, 1, 7, 7, 3, 8};
  const auto parts = partition_by_size(sizes, 3);
  ASSERT_EQ(parts.size(), 3u);
  std::vector<std::size_t> seen;
  for (const auto& p : parts) {
    EXPECT_TRUE(std::is_sorted(p.begin(), p.end()));
    seen.insert(seen.end(), p.begin(), p.end());
  }
  std::sort(seen.begin(), seen.end());
  std::vector<std::size_t> all(sizes.size());
  std::iota(all.begin(), all.end(), std::size_t{0});
  EXPECT_EQ(seen, all);
}

TEST(MpiPartition, LargestFirstToTheLightestProcess) {
  // 9 → p0; 8 → p1; 7 → p2; the second 7 → p2 (the lightest at 7): 14; 5 → p1: 13;
  // 3 → p0: 12; 1 → p0: 13.
  const std::vector<std::uint64_t> sizes = {5, 9, 1, 7, 7, 3, 8};
  const auto parts = partition_by_size(sizes, 3);
  EXPECT_EQ(parts[0], (std::vector<std::size_t>{1, 2, 5}));
  EXPECT_EQ(parts[1], (std::vector<std::size_t>{0, 6}));
  EXPECT_EQ(parts[2], (std::vector<std::size_t>{3, 4}));
}

TEST(MpiPartition, NoProcessHoldsMoreThanTheAveragePlusOneFile) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<std::uint64_t> sizes(1 + rng() % 300);
    for (auto& s : sizes) s = 1 + rng() % 1'000'000;
    const int processes = 1 + static_cast<int>(rng() % 17);
    const auto parts = partition_by_size(sizes, processes);
    const std::uint64_t total = std::accumulate(sizes.begin(), sizes.end(), std::uint64_t{0});
    const std::uint64_t largest = *std::max_element(sizes.begin(), sizes.end());
    for (const auto& p : parts) EXPECT_LE(bytes_of(p, sizes), total / processes + largest);
  }
}

TEST(MpiPartition, MoreProcessesThanFilesLeavesSomeIdle) {
  const auto parts = partition_by_size({10, 20}, 4);
  EXPECT_EQ(parts[0], (std::vector<std::size_t>{1}));
  EXPECT_EQ(parts[1], (std::vector<std::size_t>{0}));
  EXPECT_TRUE(parts[2].empty());
  EXPECT_TRUE(parts[3].empty());
}

TEST(MpiPartition, RejectsNoProcesses) { EXPECT_THROW(partition_by_size({1}, 0), std::invalid_argument); }

}  // namespace
}  // namespace whyslow::mpi
