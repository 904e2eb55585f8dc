// CategoryColumn: a byte per event while a trace has at most 256 categories, every category kept
// exactly once it has more; and release_unused_capacity(), which must leave a vector as it was.
#include "trace/category_column.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "common/unused_capacity.hpp"
#include "loader_test_util.hpp"

namespace whyslow {
namespace {

using testing::column_values;

TEST(CategoryColumn, StaysNarrowForAFewCategoriesWithNoneAmongThem) {
  CategoryColumn c;
  const std::vector<NameId> in = {7, kNoName, 7, 3'000'000, 0, kNoName, 3'000'000};
  c.reserve(in.size());
  for (NameId x : in) c.push_back(x);
  EXPECT_FALSE(c.is_wide());
  EXPECT_EQ(column_values(c), in);
}

TEST(CategoryColumn, WidensOnceAtThe257thCategoryAndKeepsTheEarlierOnes) {
  CategoryColumn c;
  std::vector<NameId> in;
  for (NameId k = 0; k < 300; ++k) {  // each new category between repeats of the first ones
    in.push_back(1000 + k);
    in.push_back(1000 + k % 3);
  }
  in.push_back(kNoName);
  for (NameId x : in) {
    c.push_back(x);
    if (c.size() == 2 * 256) {
      EXPECT_FALSE(c.is_wide());
    }
  }
  EXPECT_TRUE(c.is_wide());
  EXPECT_EQ(column_values(c), in);
}

TEST(CategoryColumn, ReleasingItsUnusedCapacityKeepsItsValuesAndItsGrowth) {
  CategoryColumn c;
  c.reserve(size_t{64} << 20);  // pages of capacity to give back
  for (NameId k = 0; k < 10; ++k) c.push_back(k % 4);
  c.release_unused_capacity();
  for (NameId k = 10; k < 20; ++k) c.push_back(k % 4);
  for (size_t i = 0; i < c.size(); ++i) EXPECT_EQ(c[i], i % 4) << i;
}

TEST(UnusedCapacity, AReleasedVectorKeepsItsElementsAndTakesNewOnes) {
  std::vector<int64_t> v;
  v.reserve(size_t{4} << 20);
  for (int64_t i = 0; i < 1000; ++i) v.push_back(i * 3);
  const int64_t* data = v.data();
  release_unused_capacity(v);
  EXPECT_EQ(v.data(), data);  // nothing moved: the pages behind the capacity went back
  for (int64_t i = 1000; i < 600'000; ++i) v.push_back(i * 3);  // into the released pages
  EXPECT_EQ(v.data(), data);
  for (int64_t i = 0; i < 600'000; ++i) ASSERT_EQ(v[static_cast<size_t>(i)], i * 3) << i;
  std::vector<int32_t> empty;
  release_unused_capacity(empty);  // no storage at all
  EXPECT_TRUE(empty.empty());
}

}  // namespace
}  // namespace whyslow
