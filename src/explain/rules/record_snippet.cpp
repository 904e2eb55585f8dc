#include "explain/rules/record_snippet.hpp"

namespace whyslow {

CodeSnippet torch_profile_snippet(std::string caption) {
  return {std::move(caption), "python",
          "from torch.profiler import ProfilerActivity, profile, schedule\n"
          "\n"
          "with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],\n"
          "             schedule=schedule(wait=1, warmup=1, active=3, repeat=1),\n"
          "             record_shapes=True, with_stack=True, with_modules=True) as prof:\n"
          "    for step in range(5):  # wait + warmup + active\n"
          "        train_step()\n"
          "        prof.step()\n"
          "prof.export_chrome_trace(\"trace.json.gz\")  # after the with block: the profiler has stopped"};
}

}  // namespace whyslow
