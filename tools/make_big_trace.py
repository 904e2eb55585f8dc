#!/usr/bin/env python3
"""Make a big plain-JSON Kineto trace for benchmarking the loader, from a real one.

    python3 tools/make_big_trace.py [IN] OUT [--min-mb 500] [--gap-us 1000] [--check]

IN defaults to tests/fixtures/torch/compiled_cold.json.gz (recorded by libkineto on an H200);
it may be plain JSON or gzip. OUT is written as plain JSON, streamed one repetition at a time,
so this script never holds more than about two copies of the source's events in memory.

The output holds the source's top-level keys (deviceProperties, baseTimeNanoseconds, ...) once,
as their original text, and its traceEvents repeated R times, R the smallest count that makes
the file at least --min-mb megabytes (10^6 bytes). Repetition r (0-based) is the source with
  * every "ts" moved later by r x SHIFT, SHIFT = the source's span (first ts to last end) plus
    --gap-us, rounded up to whole microseconds. Because SHIFT is whole microseconds, only the
    integer part of the number text changes and the fractional digits are kept exactly as the
    source wrote them (libkineto's 3-decimal text such as 5123253847663.197): no float drift;
  * the ids that link events -- args "correlation", "External id", "Ev Idx", "Python id",
    "Python parent id", and the flow events' "id" -- moved up by r x ID_STRIDE, ID_STRIDE the
    power of ten above the largest such id in the source, so launch<->kernel and op<->kernel
    links stay unique and keep pointing inside their own repetition. A correlation / External
    id / flow id of 0 means "none" to Kineto and stays 0;
  * "ProfilerStep#N" renumbered to N + r x (number of steps in the source), so steps stay
    consecutive.
Everything else (names, durations, args, layout, whitespace) is the source's own text.

--check reloads OUT once with Python's json module and checks the event count, that every
timestamp moved by the expected shift, and that correlations stay unique per repetition.
"""
import argparse
import gzip
import json
import math
import os
import re
import sys
import time

DEFAULT_SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures",
                              "torch", "compiled_cold.json.gz")

ID_KEYS = ("correlation", "External id", "Ev Idx", "Python id", "Python parent id", "id")
ZERO_MEANS_NONE = {"correlation", "External id", "id"}

# One alternation so a single left-to-right pass finds every slot in source order.
SLOT_RE = re.compile(
    r'(?P<tskey>"ts"\s*:\s*)(?P<ts>-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)'
    r'|(?P<idkey>"(?P<idname>' + "|".join(re.escape(k) for k in ID_KEYS) + r')"\s*:\s*)'
    r'(?P<id>-?\d+)(?![\d.eE])'
    r'|(?P<stepkey>ProfilerStep#)(?P<step>\d+)')


def read_text(path):
    with open(path, "rb") as f:
        magic = f.read(2)
    opener = gzip.open if magic == b"\x1f\x8b" else open
    with opener(path, "rb") as f:
        return f.read().decode("utf-8")


def micros_text_to_ns(text):
    """Exact integer nanoseconds from decimal microsecond text (as whyslow reads it)."""
    if "e" in text or "E" in text:
        return round(float(text) * 1000)
    neg = text.startswith("-")
    t = text[1:] if neg else text
    whole, _, frac = t.partition(".")
    ns = int(whole) * 1000 + int((frac + "000")[:3])
    if len(frac) > 3 and frac[3] >= "5":
        ns += 1
    return -ns if neg else ns


def ns_to_micros_text(ns):
    sign = "-" if ns < 0 else ""
    ns = abs(ns)
    return f"{sign}{ns // 1000}.{ns % 1000:03d}"


def find_events_array(text):
    """(start, end) of the traceEvents array's body text (between '[' and ']'), and the events."""
    m = re.search(r'"traceEvents"\s*:\s*', text)
    if not m:
        sys.exit("make_big_trace: the source has no \"traceEvents\" array")
    open_at = m.end()
    if text[open_at] != "[":
        sys.exit("make_big_trace: \"traceEvents\" is not an array")
    events, end = json.JSONDecoder().raw_decode(text, open_at)
    return open_at + 1, end - 1, events


class Template:
    """The events' text cut at every slot this script rewrites."""

    def __init__(self, body):
        self.pieces = []      # literal text; len(slots) + 1 pieces
        self.slots = []       # (kind, payload)
        pos = 0
        for m in SLOT_RE.finditer(body):
            if m.group("tskey") is not None:
                key_end = m.end("tskey")
                ts = m.group("ts")
                whole, dot, frac = ts.partition(".")
                if ts.startswith("-") or "e" in ts or "E" in ts:
                    slot = ("ts_ns", micros_text_to_ns(ts))
                else:
                    slot = ("ts", (int(whole), dot + frac))
            elif m.group("idkey") is not None:
                key_end = m.end("idkey")
                slot = ("id", (m.group("idname"), int(m.group("id"))))
            else:
                key_end = m.end("stepkey")
                slot = ("step", int(m.group("step")))
            self.pieces.append(body[pos:key_end])
            self.slots.append(slot)
            pos = m.end()
        self.pieces.append(body[pos:])
        ids = [v for k, (n, v) in ((k, p) for k, p in self.slots if k == "id")]
        self.max_id = max([abs(v) for v in ids] + [0])
        steps = [p for k, p in self.slots if k == "step"]
        self.step_count = (max(steps) - min(steps) + 1) if steps else 0
        self.count = {k: sum(1 for s in self.slots if s[0] == k) for k in ("ts", "ts_ns", "id", "step")}

    def render(self, shift_us, id_offset, step_offset):
        if shift_us == 0 and id_offset == 0 and step_offset == 0:
            vals = []
            for kind, p in self.slots:
                if kind == "ts":
                    vals.append(f"{p[0]}{p[1]}")
                elif kind == "ts_ns":
                    vals.append(ns_to_micros_text(p))
                elif kind == "id":
                    vals.append(str(p[1]))
                else:
                    vals.append(str(p))
        else:
            shift_ns = shift_us * 1000
            vals = []
            append = vals.append
            for kind, p in self.slots:
                if kind == "ts":
                    append(f"{p[0] + shift_us}{p[1]}")
                elif kind == "id":
                    name, v = p
                    append(str(v) if (v == 0 and name in ZERO_MEANS_NONE) else str(v + id_offset))
                elif kind == "step":
                    append(str(p + step_offset))
                else:
                    append(ns_to_micros_text(p + shift_ns))
        out = [None] * (len(self.pieces) + len(vals))
        out[0::2] = self.pieces
        out[1::2] = vals
        return "".join(out)


def check(out_path, events_per_rep, reps, shift_us, source_events):
    t0 = time.time()
    with open(out_path, "rb") as f:
        doc = json.load(f)
    ev = doc["traceEvents"]
    if len(ev) != events_per_rep * reps:
        sys.exit(f"check: {len(ev)} events, expected {events_per_rep} x {reps}")
    shift_ns = shift_us * 1000
    for r in (0, reps // 2, reps - 1):  # spot-check three repetitions against the source
        for i, (a, b) in enumerate(zip(source_events, ev[r * events_per_rep:(r + 1) * events_per_rep])):
            if "ts" in a and micros_text_to_ns(repr(b["ts"])) - micros_text_to_ns(repr(a["ts"])) != r * shift_ns:
                sys.exit(f"check: repetition {r} event {i}: ts {b['ts']} is not {a['ts']} + {r} x {shift_us} us")
            if a.get("name") != b.get("name") and "ProfilerStep#" not in a.get("name", ""):
                sys.exit(f"check: repetition {r} event {i}: name changed")
    seen = set()
    for e in ev:
        if e.get("ph") == "X" and e.get("cat") in ("cuda_runtime", "cuda_driver", "Runtime"):
            c = e.get("args", {}).get("correlation", 0)
            if c:
                if c in seen:
                    sys.exit(f"check: runtime correlation {c} appears twice")
                seen.add(c)
    keys = [k for k in doc if k != "traceEvents"]
    print(f"check: ok: {len(ev)} events, {len(seen)} unique launch correlations, top-level keys {keys}"
          f" ({time.time() - t0:.1f} s)", file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="+", metavar="[IN] OUT")
    ap.add_argument("--min-mb", type=float, default=500.0, help="minimum output size, 10^6 bytes")
    ap.add_argument("--gap-us", type=int, default=1000, help="idle time between repetitions")
    ap.add_argument("--check", action="store_true", help="reload the output with Python json")
    args = ap.parse_args()
    if len(args.paths) == 1:
        src, out = DEFAULT_SOURCE, args.paths[0]
    elif len(args.paths) == 2:
        src, out = args.paths
    else:
        ap.error("give IN OUT, or just OUT")

    t0 = time.time()
    text = read_text(src)
    body_begin, body_end, events = find_events_array(text)
    head, body, tail = text[:body_begin], text[body_begin:body_end], text[body_end:]
    body = body.strip()
    if not events:
        sys.exit("make_big_trace: the source has no events")

    starts = [micros_text_to_ns(repr(e["ts"]) if isinstance(e["ts"], float) else str(e["ts"]))
              for e in events if "ts" in e]
    ends = [micros_text_to_ns(repr(e["ts"])) + micros_text_to_ns(repr(e.get("dur") or 0))
            for e in events if "ts" in e]
    span_ns = max(ends) - min(starts)
    shift_us = math.ceil((span_ns + args.gap_us * 1000) / 1000)

    tpl = Template(body)
    id_stride = 10 ** len(str(tpl.max_id)) if tpl.max_id else 0
    sep = ",\n  "
    rep_bytes = len(body.encode("utf-8")) + len(sep)
    fixed_bytes = len(head.encode("utf-8")) + len(tail.encode("utf-8")) + 2
    min_bytes = int(args.min_mb * 1e6)
    reps = max(1, math.ceil((min_bytes - fixed_bytes) / rep_bytes))
    print(f"make_big_trace: {src}: {len(events)} events, {len(text) / 1e6:.1f} MB, span "
          f"{span_ns / 1e9:.3f} s; {reps} repetitions, ts shift {shift_us} us, id stride {id_stride}, "
          f"{tpl.step_count} ProfilerSteps per repetition", file=sys.stderr)

    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    tmp = out + ".part"
    with open(tmp, "w", encoding="utf-8", newline="") as f:
        f.write(head)
        f.write("\n  ")
        for r in range(reps):
            if r:
                f.write(sep)
            f.write(tpl.render(r * shift_us, r * id_stride, r * tpl.step_count))
        f.write("\n  ")
        f.write(tail)
    os.replace(tmp, out)
    size = os.path.getsize(out)
    print(f"make_big_trace: wrote {out}: {size / 1e6:.1f} MB, {reps * len(events)} events "
          f"({time.time() - t0:.1f} s)", file=sys.stderr)
    if args.check:
        check(out, len(events), reps, shift_us, events)


if __name__ == "__main__":
    main()
