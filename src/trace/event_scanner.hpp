// A reader written for Kineto's events: one pass over each event's bytes, keys told apart by
// length before any compare, values converted where they stand, strings taken in place. It reads
// valid JSON only, and only what it is sure of: an escaped key, a raw control byte, invalid UTF-8,
// nesting deeper than it follows, and every error give the batch back to the general reader
// (event_parser.cpp), whose events and messages then stand. The two read a valid event alike;
// tests load every fixture and corpus trace with both and compare (EventReader::Compare).
#pragma once

#include "trace/parsed_batch.hpp"

namespace whyslow {

// Reads every event of `batch` into batch.events / texts / strings / owned (empty on entry).
// False when it gave the batch up: those are then partly filled, for the caller to clear.
bool scan_event_batch(ParsedBatch& batch);

}  // namespace whyslow
