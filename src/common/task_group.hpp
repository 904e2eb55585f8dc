// Independent jobs spread over a few threads, the caller's among them: the analyses' passes,
// which read one immutable trace and each write their own result. A job may queue more jobs
// (one whose inputs it has just computed). At most `threads` run at once, so at most that many
// passes hold their temporaries at the same time: on two cores, memory peaks as with two.
#pragma once

#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace whyslow {

class TaskGroup {
 public:
  explicit TaskGroup(unsigned threads);
  ~TaskGroup();  // waits for the jobs still queued or running; an error of theirs is dropped
  TaskGroup(const TaskGroup&) = delete;
  TaskGroup& operator=(const TaskGroup&) = delete;

  // Queues a job; jobs run in the order queued. Callable from a job.
  void run(std::function<void()> job);
  // The calling thread runs queued jobs too until every job is done, then rethrows the first
  // job's exception (the others still ran).
  void wait();

 private:
  bool run_one(std::unique_lock<std::mutex>& lock);  // false when nothing is queued
  void work();

  std::mutex m_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queued_;
  size_t running_ = 0;
  bool stop_ = false;
  std::exception_ptr error_;
  std::vector<std::thread> threads_;
};

}  // namespace whyslow
