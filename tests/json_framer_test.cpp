// The JSON value framer (src/trace/json_framer.hpp): finds where an event ends, across buffer
// refills, without parsing it.
#include "trace/json_framer.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace whyslow {
namespace {

// Scans `text` from `from` in one call.
size_t end_of(const std::string& text, size_t from = 0) {
  FrameScan st;
  return scan_value_end(text.data(), from, text.size(), st);
}

// Scans [from, split) then [split, size) with the same state; returns the end, or size when the
// second call did not find one either. `split_found` tells whether the first call already ended.
size_t end_in_two_calls(const std::string& text, size_t from, size_t split) {
  FrameScan st;
  const size_t first = scan_value_end(text.data(), from, split, st);
  if (st.depth == 0 && !st.in_string && first <= split && first > from) return first;
  return scan_value_end(text.data(), split, text.size(), st);
}

TEST(ScanValueEnd, ObjectWithNestedArrays) {
  const std::string v = R"({"a":[1,[2,{"b":[]}],[[[]]]],"c":{"d":{"e":[{}]}}})";
  EXPECT_EQ(end_of(v + R"(,{"x":1}])"), v.size());
  EXPECT_EQ(end_of(v), v.size());
}

TEST(ScanValueEnd, ArrayValue) {
  const std::string v = R"([{"a":1},{"b":[2,3]}])";
  EXPECT_EQ(end_of(v + ",[]"), v.size());
}

TEST(ScanValueEnd, BracesAndBracketsInsideStrings) {
  const std::string v = R"({"name":"}{][ }} ]] {{","x":"[","y":"}"})";
  EXPECT_EQ(end_of(v + "}}]]"), v.size());
}

TEST(ScanValueEnd, EscapedQuotes) {
  const std::string v = R"({"n":"a\"}b\"","m":"\"","k":"x"})";
  EXPECT_EQ(end_of(v + R"(,{"z":"}"})"), v.size());
}

TEST(ScanValueEnd, EscapedBackslashes) {
  // "a\\" ends after the escaped backslash; the next quote opens a new string.
  const std::string v1 = R"({"n":"a\\"})";
  EXPECT_EQ(end_of(v1 + "}"), v1.size());
  const std::string v2 = R"({"n":"a\\\"}","m":"\\\\"})";  // \\ then \" inside one string
  EXPECT_EQ(end_of(v2 + "}"), v2.size());
  const std::string v3 = R"({"path":"C:\\dir\\","q":"\\\\\\\""})";
  EXPECT_EQ(end_of(v3 + "]"), v3.size());
}

TEST(ScanValueEnd, UnicodeEscapesAndOtherEscapes) {
  const std::string v = R"({"u":"\u007d\u005d\n\t\/","b":"\b\f\r"})";
  EXPECT_EQ(end_of(v + "}"), v.size());
}

TEST(ScanValueEnd, BareString) {
  const std::string v = R"("abc\"def\\")";
  EXPECT_EQ(end_of(v + R"(,"x")"), v.size());
}

TEST(ScanValueEnd, StartsAtFromNotAtZero) {
  const std::string prefix = R"(garbage "}" {{ )";
  const std::string v = R"({"a":"}"})";
  EXPECT_EQ(end_of(prefix + v + "}", prefix.size()), prefix.size() + v.size());
}

TEST(ScanValueEnd, IncompleteValueReturnsToAndKeepsState) {
  const std::string s = R"({"a":[1,{"b":"x\)";
  FrameScan st;
  EXPECT_EQ(scan_value_end(s.data(), 0, s.size(), st), s.size());
  EXPECT_EQ(st.depth, 3);
  EXPECT_TRUE(st.in_string);
  EXPECT_TRUE(st.escaped);
  // Continue: the escaped byte is a quote, which must not close the string.
  const std::string rest = R"("y"}]})";
  const std::string all = s + rest;
  EXPECT_EQ(scan_value_end(all.data(), s.size(), all.size(), st), all.size());
  EXPECT_EQ(st.depth, 0);
  EXPECT_FALSE(st.in_string);
}

TEST(ScanValueEnd, EmptyRangeChangesNothing) {
  const std::string v = R"({"a":1})";
  FrameScan st;
  EXPECT_EQ(scan_value_end(v.data(), 3, 3, st), 3u);
  EXPECT_EQ(st.depth, 0);
  EXPECT_FALSE(st.in_string);
  EXPECT_FALSE(st.escaped);
}

// Values where escapes, quotes and braces fall at every offset modulo 16.
std::vector<std::string> tricky_values() {
  std::vector<std::string> out = {
      R"({"a":"\\"})",
      R"({"a":"\""})",
      R"({"a":"x\\\"y\\","b":["}",{"c":"\\\\"}]})",
      R"({"ph":"X","name":"q\"}\\{","args":{"s":"\\\"]","t":[[{"u":"\"\\"}]]}})",
      R"("\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\")",
      R"("\"\"\"\"\"\"\"\"\"\"\"\"\"\"\"\"\"\"\"\"\"\"\"\"\"\"")",
  };
  // A backslash at each position 0..40 of a string, then an escaped quote and a closing brace.
  for (int pad = 0; pad < 40; ++pad) {
    out.push_back("{\"k\":\"" + std::string(pad, 'x') + "\\\"}\\\\\",\"z\":[\"]\"]}");
    out.push_back("[\"" + std::string(pad, ' ') + "\\\\\",{\"a\":\"\\\"\"}]");
  }
  return out;
}

TEST(ScanValueEnd, ResumableAtEverySplitPosition) {
  for (const std::string& v : tricky_values()) {
    const std::string text = v + R"(,{"next":"}"}])";
    ASSERT_EQ(end_of(text), v.size()) << v;
    for (size_t split = 0; split <= text.size(); ++split) {
      EXPECT_EQ(end_in_two_calls(text, 0, split), v.size()) << v << " split at " << split;
    }
  }
}

TEST(ScanValueEnd, OneByteAtATime) {
  for (const std::string& v : tricky_values()) {
    const std::string text = v + "}]";
    FrameScan st;
    size_t end = text.size();
    for (size_t i = 0; i < text.size(); ++i) {
      const size_t r = scan_value_end(text.data(), i, i + 1, st);
      if (r == i + 1 && st.depth == 0 && !st.in_string) {
        end = r;
        break;
      }
    }
    EXPECT_EQ(end, v.size()) << v;
  }
}

TEST(ScanValueEnd, EscapeAtSixteenByteBoundary) {
  // The SIMD loop looks at 16 bytes at a time; put the backslash at the last byte of a block,
  // so the escaped quote is the first byte of the next one, for every alignment of `from`.
  for (size_t from = 0; from < 16; ++from) {
    for (size_t backslash_at = 5; backslash_at < 60; ++backslash_at) {
      // {"k":"xxx\"}" ...  with the backslash at offset backslash_at from `from`.
      const std::string head = "{\"k\":\"";
      if (backslash_at < head.size()) continue;
      std::string v = head + std::string(backslash_at - head.size(), 'x') + "\\\"}\"}";
      ASSERT_EQ(v[backslash_at], '\\');
      const std::string text = std::string(from, '#') + v + "}}}}}}}}}}}}}}}}}}}}";
      EXPECT_EQ(end_of(text, from), from + v.size()) << "from " << from << " at " << backslash_at;
      // The same with the buffer cut right after the backslash, and right before it.
      for (size_t cut : {from + backslash_at + 1, from + backslash_at}) {
        EXPECT_EQ(end_in_two_calls(text, from, cut), from + v.size())
            << "from " << from << " at " << backslash_at << " cut " << cut;
      }
    }
  }
}

TEST(ScanValueEnd, EscapedBackslashPairsAcrossBlocks) {
  // Runs of backslashes of every length: an even run leaves the quote closing the string.
  for (int run = 0; run < 40; ++run) {
    for (size_t from = 0; from < 16; ++from) {
      std::string v = "{\"k\":\"" + std::string(run, '\\');
      if (run % 2 == 1) v += "\"";  // odd run: the last backslash escapes this quote
      v += "\"}";
      const std::string text = std::string(from, ' ') + v + "}\"}\"}}}}}}}}}}}}}}}}}";
      EXPECT_EQ(end_of(text, from), from + v.size()) << "run " << run << " from " << from;
      for (size_t split = from; split <= text.size(); ++split)
        ASSERT_EQ(end_in_two_calls(text, from, split), from + v.size())
            << "run " << run << " from " << from << " split " << split;
    }
  }
}

// Random valid JSON with many strings, escapes and brackets; its length is the oracle.
class RandomJson {
 public:
  // `escape_every`: on average one string piece in this many is an escape; large values with
  // rare escapes exercise long runs of blocks that hold no backslash at all.
  explicit RandomJson(uint32_t seed, int escape_every = 3) : rng_(seed), escape_every_(escape_every) {}
  std::string value(int depth) {
    const int pick = static_cast<int>(rng_() % (depth > 3 ? 3 : 6));
    switch (pick) {
      case 0: return string();
      case 1: return std::to_string(rng_() % 100000);
      case 2: return rng_() % 2 ? "true" : "null";
      case 3: {
        std::string s = "[";
        const int n = static_cast<int>(rng_() % 5);
        for (int i = 0; i < n; ++i) {
          if (i) s += ',';
          s += value(depth + 1);
        }
        return s + "]";
      }
      default: {
        std::string s = "{";
        const int n = static_cast<int>(rng_() % 5);
        for (int i = 0; i < n; ++i) {
          if (i) s += ", ";
          s += string();
          s += ':';
          s += value(depth + 1);
        }
        return s + "}";
      }
    }
  }
  std::string object(int max_fields = 6) {
    std::string s = "{";
    const int n = 1 + static_cast<int>(rng_() % max_fields);
    for (int i = 0; i < n; ++i) {
      if (i) s += ',';
      s += string();
      s += ':';
      s += value(1);
    }
    return s + "}";
  }

 private:
  std::string string() {
    static const char* plain[] = {"a", "{", "}", "[", "]", " ", ",", ":", "xyz", "aten::mm"};
    static const char* escapes[] = {"\\\"", "\\\\", "\\n", "\\u005c", "\\/"};
    std::string s = "\"";
    const int n = static_cast<int>(rng_() % 12);
    for (int i = 0; i < n; ++i) {
      if (rng_() % escape_every_ == 0) s += escapes[rng_() % (sizeof escapes / sizeof *escapes)];
      else s += plain[rng_() % (sizeof plain / sizeof *plain)];
    }
    return s + "\"";
  }
  std::mt19937 rng_;
  int escape_every_;
};

TEST(ScanValueEnd, RandomValuesAtAllSplitsAndAlignments) {
  RandomJson gen(12345);
  for (int n = 0; n < 300; ++n) {
    const std::string v = gen.object();
    const size_t from = static_cast<size_t>(n % 16);
    const std::string text = std::string(from, ' ') + v + ",{\"a\":\"}\\\"\"}]";
    ASSERT_EQ(end_of(text, from), from + v.size()) << v;
    for (size_t split = from; split <= text.size(); ++split)
      ASSERT_EQ(end_in_two_calls(text, from, split), from + v.size()) << v << " split " << split;
  }
}

TEST(ScanValueEnd, LargeRandomValuesWithRareEscapes) {
  RandomJson gen(777, 200);
  for (int n = 0; n < 40; ++n) {
    std::string v = "[";
    for (int k = 0; k < 30; ++k) {
      if (k) v += ',';
      v += gen.object(12);
    }
    v += "]";
    const size_t from = static_cast<size_t>(n % 16);
    const std::string text = std::string(from, ' ') + v + ",{\"a\":\"}\\\"\"}]";
    ASSERT_EQ(end_of(text, from), from + v.size()) << v;
    for (size_t split = from; split <= text.size(); split += 7)
      ASSERT_EQ(end_in_two_calls(text, from, split), from + v.size()) << v << " split " << split;
  }
}

TEST(BlankControlChars, ReplacesOnlyInsideStrings) {
  std::string s = "{\n\"a\":\"x\ty\n\",\t\"b\x01\":1,\r\n\"c\":\"\x1f\"}";
  const std::string expected = "{\n\"a\":\"x y \",\t\"b \":1,\r\n\"c\":\" \"}";
  EXPECT_EQ(blank_control_chars_in_strings(s.data(), 0, s.size()), 4u);
  EXPECT_EQ(s, expected);
}

TEST(BlankControlChars, RespectsEscapes) {
  // After \" the string goes on (the \x02 is inside it); after \\ the quote closes it, so the
  // \x03 that follows is outside a string and stays.
  std::string s = "[\"a\\\"\x02\",\"b\\\\\"\x03,\"\x04\"]";
  const std::string expected = "[\"a\\\" \",\"b\\\\\"\x03,\" \"]";
  EXPECT_EQ(blank_control_chars_in_strings(s.data(), 0, s.size()), 2u);
  EXPECT_EQ(s, expected);
}

TEST(BlankControlChars, OnlyTheGivenRange) {
  std::string s = "\"\x01\x02\x03\"";
  // Starting at 2 the scanner is outside a string: the \x02 and \x03 are not in one it sees.
  EXPECT_EQ(blank_control_chars_in_strings(s.data(), 2, s.size()), 0u);
  EXPECT_EQ(s, "\"\x01\x02\x03\"");
  EXPECT_EQ(blank_control_chars_in_strings(s.data(), 0, 3), 2u);
  EXPECT_EQ(s, "\"  \x03\"");
}

TEST(BlankControlChars, NothingToReplace) {
  std::string s = R"({"a":"plain \n escaped","b":[1,2]})";
  const std::string before = s;
  EXPECT_EQ(blank_control_chars_in_strings(s.data(), 0, s.size()), 0u);
  EXPECT_EQ(s, before);
}

}  // namespace
}  // namespace whyslow
