// Process-wide memory settings for whyslow's own executables (not the Python module, which lives
// in someone else's process).
#pragma once

namespace whyslow {

// Keeps every large allocation (≥ 128 KiB: the loader's columns, the analyses' per-event arrays)
// in a mapping of its own, returned to the system when freed. glibc otherwise raises that
// threshold to the size of the largest block freed so far (up to 32 MiB), after which the
// analyses' temporaries land in the heap and stay resident once freed: 14 MB more peak memory
// on a 540 MB trace. No effect outside glibc.
void return_large_blocks_to_the_system();

}  // namespace whyslow
