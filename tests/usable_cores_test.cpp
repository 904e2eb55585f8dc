// usable_cores() follows the CPU affinity (what `taskset -c 0` or a container's cpuset allows),
// not the machine's core count.
#include "common/usable_cores.hpp"

#include <gtest/gtest.h>
#include <sched.h>

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

}  // namespace
}  // namespace whyslow
