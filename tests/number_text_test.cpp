// Exact number text → integer conversion (src/trace/number_text.hpp).
#include "trace/number_text.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>

namespace whyslow {
namespace {

using Ns = std::optional<int64_t>;

TEST(MicrosTextToNs, IntegerMicroseconds) {
  EXPECT_EQ(micros_text_to_ns("0"), Ns(0));
  EXPECT_EQ(micros_text_to_ns("7"), Ns(7000));
  EXPECT_EQ(micros_text_to_ns("274"), Ns(274000));
  // Absolute Unix-epoch µs as written until 2024.
  EXPECT_EQ(micros_text_to_ns("1694128201435418"), Ns(1694128201435418000));
}

TEST(MicrosTextToNs, ThreeDecimalsAreExactBeyondDoublePrecision) {
  // 19 significant digits: a double would give ...689.047 ± 0.25 ns, i.e. a different integer.
  EXPECT_EQ(micros_text_to_ns("1712195495519689.047"), Ns(1712195495519689047));
  EXPECT_EQ(micros_text_to_ns("1712195495519689.048"), Ns(1712195495519689048));
  EXPECT_EQ(micros_text_to_ns("1712195495519689.999"), Ns(1712195495519689999));
  EXPECT_EQ(micros_text_to_ns("1712195495519689.000"), Ns(1712195495519689000));
  EXPECT_EQ(micros_text_to_ns("5123253847663.197"), Ns(5123253847663197));
  EXPECT_EQ(micros_text_to_ns("0.001"), Ns(1));
  EXPECT_EQ(micros_text_to_ns("274.975"), Ns(274975));
}

TEST(MicrosTextToNs, OneOrTwoDecimals) {
  EXPECT_EQ(micros_text_to_ns("12.5"), Ns(12500));
  EXPECT_EQ(micros_text_to_ns("12.05"), Ns(12050));
  EXPECT_EQ(micros_text_to_ns("5.0"), Ns(5000));
  EXPECT_EQ(micros_text_to_ns("0.5"), Ns(500));
  EXPECT_EQ(micros_text_to_ns("1694128201435418.5"), Ns(1694128201435418500));
}

TEST(MicrosTextToNs, FourthDecimalRoundsHalfAwayFromZero) {
  EXPECT_EQ(micros_text_to_ns("1.0004"), Ns(1000));
  EXPECT_EQ(micros_text_to_ns("1.0005"), Ns(1001));
  EXPECT_EQ(micros_text_to_ns("1.0009"), Ns(1001));
  EXPECT_EQ(micros_text_to_ns("1.00049999"), Ns(1000));
  EXPECT_EQ(micros_text_to_ns("1.00050000"), Ns(1001));
  EXPECT_EQ(micros_text_to_ns("0.9995"), Ns(1000));  // carries into the µs digit
  EXPECT_EQ(micros_text_to_ns("1712195495519689.0475"), Ns(1712195495519689048));
  EXPECT_EQ(micros_text_to_ns("-1.0005"), Ns(-1001));
  EXPECT_EQ(micros_text_to_ns("-1.0004"), Ns(-1000));
}

TEST(MicrosTextToNs, Exponents) {
  EXPECT_EQ(micros_text_to_ns("1e3"), Ns(1000000));
  EXPECT_EQ(micros_text_to_ns("1E3"), Ns(1000000));
  EXPECT_EQ(micros_text_to_ns("2.5e+02"), Ns(250000));
  EXPECT_EQ(micros_text_to_ns("1.234567e6"), Ns(1234567000));
  EXPECT_EQ(micros_text_to_ns("1.5e-02"), Ns(15));
  EXPECT_EQ(micros_text_to_ns("1.5e-05"), Ns(0));  // 0.015 ns rounds to 0
  EXPECT_EQ(micros_text_to_ns("2.5e-03"), Ns(3));  // 2.5 ns: half away from zero
  EXPECT_EQ(micros_text_to_ns("-1e3"), Ns(-1000000));
  EXPECT_EQ(micros_text_to_ns("0e0"), Ns(0));
}

TEST(MicrosTextToNs, Negatives) {
  EXPECT_EQ(micros_text_to_ns("-5"), Ns(-5000));
  EXPECT_EQ(micros_text_to_ns("-0.001"), Ns(-1));
  EXPECT_EQ(micros_text_to_ns("-12.5"), Ns(-12500));
  EXPECT_EQ(micros_text_to_ns("-1712195495519689.047"), Ns(-1712195495519689047));
}

TEST(MicrosTextToNs, RangeLimits) {
  // INT64_MAX ns = 9223372036854775.807 µs: the last value that fits.
  EXPECT_EQ(micros_text_to_ns("9223372036854775.807"), Ns(INT64_MAX));
  EXPECT_EQ(micros_text_to_ns("9223372036854775"), Ns(9223372036854775000));
  EXPECT_EQ(micros_text_to_ns("-9223372036854775.807"), Ns(-INT64_MAX));
  EXPECT_EQ(micros_text_to_ns("9223372036854775.808"), std::nullopt);
  EXPECT_EQ(micros_text_to_ns("9223372036854775.8075"), std::nullopt);  // rounds past the max
  EXPECT_EQ(micros_text_to_ns("9223372036854776"), std::nullopt);
  EXPECT_EQ(micros_text_to_ns("99999999999999999999"), std::nullopt);
  EXPECT_EQ(micros_text_to_ns("-99999999999999999999"), std::nullopt);
  EXPECT_EQ(micros_text_to_ns("1e400"), std::nullopt);
  EXPECT_EQ(micros_text_to_ns("-1e400"), std::nullopt);
  EXPECT_EQ(micros_text_to_ns("1e16"), std::nullopt);  // 1e19 ns
  EXPECT_EQ(micros_text_to_ns("1e15"), Ns(1000000000000000000));
}

TEST(MicrosTextToNs, GarbageIsRejected) {
  for (const char* bad : {"", "-", "+1", " 1", "1 ", "abc", "1.", ".5", "1.5.5", "1e", "1e+",
                          "1ee3", "1e3x", "0x10", "nan", "inf", "--1", "1,5", "\"12\"", "12a",
                          "1.2.3e4", "true", "null"}) {
    EXPECT_EQ(micros_text_to_ns(bad), std::nullopt) << "input: '" << bad << "'";
  }
}

// Against plain 128-bit arithmetic, digit by digit: integer parts of 1 to 20 digits (the
// converter takes eight at a time while they fit), 0-5 decimals, and a non-digit byte put at
// every position of the integer part.
TEST(MicrosTextToNs, AgreesWithDigitByDigitArithmetic) {
  const auto reference = [](const std::string& text) -> Ns {
    size_t i = 0;
    const bool negative = !text.empty() && text[0] == '-';
    if (negative) ++i;
    const size_t digits_begin = i;
    __int128 us = 0;
    for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) us = us * 10 + (text[i] - '0');
    if (i == digits_begin || (text[digits_begin] == '0' && i - digits_begin > 1)) return std::nullopt;
    __int128 frac = 0;
    int round_up = 0;
    if (i < text.size() && text[i] == '.') {
      const size_t frac_begin = ++i;
      for (int d = 0; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i, ++d) {
        if (d < 3) frac = frac * 10 + (text[i] - '0');
        else if (d == 3) round_up = text[i] >= '5';
      }
      if (i == frac_begin) return std::nullopt;
      for (size_t d = i - frac_begin; d < 3; ++d) frac *= 10;
    }
    if (i != text.size()) return std::nullopt;
    const __int128 ns = us * 1000 + frac + round_up;
    if (ns > INT64_MAX) return std::nullopt;
    return static_cast<int64_t>(negative ? -ns : ns);
  };
  uint64_t seed = 12345;
  const auto next = [&seed] { return (seed = seed * 6364136223846793005ull + 1442695040888963407ull) >> 33; };
  int checked = 0;
  for (int len = 1; len <= 20; ++len) {
    for (int decimals = 0; decimals <= 5; ++decimals) {
      for (int trial = 0; trial < 20; ++trial) {
        std::string text = trial % 2 ? "-" : "";
        text += static_cast<char>('1' + next() % 9);
        for (int k = 1; k < len; ++k) text += static_cast<char>('0' + next() % 10);
        if (decimals > 0) {
          text += '.';
          for (int k = 0; k < decimals; ++k) text += static_cast<char>('0' + next() % 10);
        }
        EXPECT_EQ(micros_text_to_ns(text), reference(text)) << text;
        ++checked;
        const size_t first = trial % 2;
        for (size_t at = first; at < first + len; ++at) {  // a stray byte inside the digits
          std::string bad = text;
          bad[at] = "x/:a "[next() % 5];
          EXPECT_EQ(micros_text_to_ns(bad), std::nullopt) << bad;
        }
      }
    }
  }
  EXPECT_EQ(checked, 20 * 6 * 20);
  // Kineto's form at its edges: leading zeros, 16 and 17 integer digits, the last that fits.
  for (const char* text : {"0.123", "00.123", "0123.456", "1234567890123456.789", "12345678901234567.891",
                           "9223372036854775.807", "9223372036854775.808", "9999999999999999.999", "1.2345", ".123",
                           "1.23a", "-0.001", "5124098641929.646"})
    EXPECT_EQ(micros_text_to_ns(text), reference(text)) << text;
}

TEST(IntegerTextToI64, Integers) {
  EXPECT_EQ(integer_text_to_i64("0"), Ns(0));
  EXPECT_EQ(integer_text_to_i64("42"), Ns(42));
  EXPECT_EQ(integer_text_to_i64("-42"), Ns(-42));
  EXPECT_EQ(integer_text_to_i64("-0"), Ns(0));
  EXPECT_EQ(integer_text_to_i64("1790857026000000000"), Ns(1790857026000000000));
}

TEST(IntegerTextToI64, ZeroFractionIsAnInteger) {
  EXPECT_EQ(integer_text_to_i64("5.0"), Ns(5));
  EXPECT_EQ(integer_text_to_i64("5.000"), Ns(5));
  EXPECT_EQ(integer_text_to_i64("-7.0"), Ns(-7));
  EXPECT_EQ(integer_text_to_i64("5.5"), std::nullopt);
  EXPECT_EQ(integer_text_to_i64("5.01"), std::nullopt);
}

TEST(IntegerTextToI64, Int64Limits) {
  EXPECT_EQ(integer_text_to_i64("9223372036854775807"), Ns(INT64_MAX));
  EXPECT_EQ(integer_text_to_i64("9223372036854775800"), Ns(9223372036854775800));
  EXPECT_EQ(integer_text_to_i64("-9223372036854775808"), Ns(INT64_MIN));
  EXPECT_EQ(integer_text_to_i64("-9223372036854775807"), Ns(-INT64_MAX));
  // Ids above INT64_MAX occur ("Comms Id": 10159970886766084423): not ours to read.
  EXPECT_EQ(integer_text_to_i64("9223372036854775808"), std::nullopt);
  EXPECT_EQ(integer_text_to_i64("-9223372036854775809"), std::nullopt);
  EXPECT_EQ(integer_text_to_i64("10159970886766084423"), std::nullopt);
  EXPECT_EQ(integer_text_to_i64("18446744073709551615"), std::nullopt);
  EXPECT_EQ(integer_text_to_i64("18446744073709551616"), std::nullopt);
  EXPECT_EQ(integer_text_to_i64("99999999999999999999999999"), std::nullopt);
}

TEST(IntegerTextToI64, NonIntegersAreRejected) {
  for (const char* bad : {"", "-", "+5", " 5", "5 ", "1e3", "1.5e3", "abc", "0x1F", "\"5\"",
                          "5a", "null", "true"}) {
    EXPECT_EQ(integer_text_to_i64(bad), std::nullopt) << "input: '" << bad << "'";
  }
}

}  // namespace
}  // namespace whyslow
