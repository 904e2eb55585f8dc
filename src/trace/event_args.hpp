// What each key of an event's `args` means to whyslow, apart from how a value is read: the table
// of keys in one place, over the reader's view of a value (event_parser.cpp gives simdjson's).
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

#include "trace/parsed_batch.hpp"

namespace whyslow {

// Whether `key` is the literal `name`: a compare of the literal's compile-time length, which the
// compiler turns into a load or two (string_view's == calls memcmp with the key's run-time length,
// 1.5 % of a load's CPU time when every key of every event went through it).
template <size_t N>
inline bool key_is(std::string_view key, const char (&name)[N]) {
  return key.size() == N - 1 && std::memcmp(key.data(), name, N - 1) == 0;
}

// Reads the value of args[key] into `e` when whyslow uses that key. `Value` is the reader's view
// of the value, with three ways to read it:
//   int64_t integer(int64_t absent)  an integer id or size; `absent` for fractions, ids above
//                                    INT64_MAX, strings, arrays, objects and literals (lenient:
//                                    they only enrich the model; text that is not JSON is an error)
//   void int3(int32_t out[3])        up to three integers of an array (grid, block); a value that
//                                    is not an array leaves `out` as it is
//   void text(TextField field)       a string's text, an array's raw text, a scalar's text; absent
//                                    for an object or null
// Keys are switched on by length first: most of an event's args are keys nobody reads.
template <class Value>
void read_event_arg(std::string_view key, Value& v, ParsedEvent& e) {
  switch (key.size()) {
    case 3:
      if (key_is(key, "Seq")) e.comm.seq = v.integer(-1);
      break;
    case 4:
      if (key_is(key, "grid")) { v.int3(e.gpu.grid); e.has_gpu_detail = true; }
      else if (key_is(key, "name")) v.text(TextField::MetaValue);
      else if (key_is(key, "Addr")) { e.memory.addr = v.integer(-1); e.has_memory = true; }
      break;
    case 5:
      if (key_is(key, "block")) { v.int3(e.gpu.block); e.has_gpu_detail = true; }
      else if (key_is(key, "bytes")) e.gpu.bytes = v.integer(-1);
      else if (key_is(key, "dtype")) v.text(TextField::CommDtype);
      else if (key_is(key, "Bytes")) { e.memory.bytes = v.integer(0); e.has_memory = true; }
      break;
    case 6:
      if (key_is(key, "labels")) v.text(TextField::MetaValue);
      break;
    case 9:
      if (key_is(key, "Device Id")) e.memory.device_id = static_cast<int32_t>(v.integer(-1));
      break;
    case 10:
      if (key_is(key, "Input type")) v.text(TextField::InputType);
      else if (key_is(key, "Input Dims")) v.text(TextField::InputDims);
      else if (key_is(key, "Group size")) e.comm.group_size = static_cast<int32_t>(v.integer(-1));
      break;
    case 11:
      if (key_is(key, "correlation")) e.correlation = v.integer(0);
      else if (key_is(key, "External id") || key_is(key, "external id")) e.external_id = v.integer(0);
      else if (key_is(key, "Device Type")) e.memory.device_type = static_cast<int32_t>(v.integer(-1));
      break;
    case 13:
      if (key_is(key, "shared memory")) e.gpu.shared_memory = static_cast<int32_t>(v.integer(-1));
      else if (key_is(key, "Input Strides")) v.text(TextField::InputStrides);
      else if (key_is(key, "In msg nelems")) e.comm.in_nelems = v.integer(-1);
      // torch 2.x writes 0 on forward ops and the forward thread's id on backward ops.
      else if (key_is(key, "Fwd thread id")) e.forward_linked = v.integer(0) != 0;
      break;
    case 14:
      if (key_is(key, "cuda_sync_kind")) v.text(TextField::SyncKind);
      else if (key_is(key, "Out msg nelems")) e.comm.out_nelems = v.integer(-1);
      else if (key_is(key, "Total Reserved")) { e.memory.total_reserved = v.integer(-1); e.has_memory = true; }
      break;
    case 15:
      if (key_is(key, "Concrete Inputs")) v.text(TextField::ConcreteInputs);
      else if (key_is(key, "Collective name")) v.text(TextField::CommCollective);
      else if (key_is(key, "Total Allocated")) { e.memory.total_allocated = v.integer(-1); e.has_memory = true; }
      else if (key_is(key, "Sequence number")) e.sequence = v.integer(-1);
      break;
    case 16:  // older torch names the group by number only
      if (key_is(key, "Process Group ID")) v.text(TextField::CommGroupId);
      break;
    case 18:
      if (key_is(key, "Process Group Name")) v.text(TextField::CommGroupName);
      break;
    case 20:
      if (key_is(key, "registers per thread")) e.gpu.registers = static_cast<int32_t>(v.integer(-1));
      break;
    default:
      break;
  }
}

}  // namespace whyslow
