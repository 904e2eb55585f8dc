// usable_cores() follows the CPU affinity (what `taskset -c 0` or a container's cpuset allows),
// not the machine's core count.
#include "common/usable_cores.hpp"

#include <gtest/gtest.h>
#include <sched.h>

#include <thread>

namespace whyslow {
namespace {

TEST(UsableCores, FollowsTheAffinityMask) {
  cpu_set_t all;
  ASSERT_EQ(sched_getaffinity(0, sizeof all, &all), 0);
  EXPECT_EQ(usable_cores(), static_cast<unsigned>(CPU_COUNT(&all)));
  int first = 0;
  while (!CPU_ISSET(first, &all)) ++first;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(first, &one);
  ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), 0);
  EXPECT_EQ(usable_cores(), 1u);
  ASSERT_EQ(sched_setaffinity(0, sizeof all, &all), 0);  // as it was, for the tests after
  EXPECT_EQ(usable_cores(), static_cast<unsigned>(CPU_COUNT(&all)));
}

// A CoreShare gives its thread a share of the cores, nested shares stack, and other threads
// keep the process's count.
TEST(UsableCores, ACoreShareHoldsForItsThreadWhileItLives) {
  const unsigned process = usable_cores();
  {
    const CoreShare share(3);
    EXPECT_EQ(usable_cores(), 3u);
    {
      const CoreShare inner(0);  // never less than one core
      EXPECT_EQ(usable_cores(), 1u);
    }
    EXPECT_EQ(usable_cores(), 3u);
    unsigned elsewhere = 0;
    std::thread([&] { elsewhere = usable_cores(); }).join();
    EXPECT_EQ(elsewhere, process);
  }
  EXPECT_EQ(usable_cores(), process);
}

}  // namespace
}  // namespace whyslow
