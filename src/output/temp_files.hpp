// The temporary files being written (output_file.cpp), removed when the process is killed by a
// signal it does not handle otherwise: every signal whose default action ends the process (SIGINT
// from Ctrl-C, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT, SIGUSR1, SIGALRM, a crash's SIGSEGV, the
// real-time signals …) would otherwise leave a "<path>.tmp-<random>" behind. SIGXFSZ is ignored
// instead, so a write past `ulimit -f` fails with a message rather than killing the run.
#pragma once

#include <string>

namespace whyslow {

// Registers a temporary file; on the first call, installs the handlers for those signals whose
// action is still the default (a program that handles or ignores one keeps its choice), and
// ignores SIGXFSZ where it is still the default. The
// handler removes the registered files, then the signal takes its default action (the process
// ends as it would have). Returns the slot to pass to forget_temp_file, or -1 when all slots are
// taken (the file is then not removed on a signal).
int remember_temp_file(const std::string& path);
// The file is renamed into place or removed by its writer: the handler must leave it alone.
void forget_temp_file(int slot);

}  // namespace whyslow
