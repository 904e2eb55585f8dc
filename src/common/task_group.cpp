#include "common/task_group.hpp"

namespace whyslow {

TaskGroup::TaskGroup(unsigned threads) {
  for (unsigned i = 1; i < threads; ++i) threads_.emplace_back([this] { work(); });  // the caller is one
}

TaskGroup::~TaskGroup() {
  try {
    wait();
  } catch (...) {  // wait() was not called, or threw already: the caller has its answer
  }
  {
    std::lock_guard lock(m_);
    stop_ = true;
  }
  cv_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void TaskGroup::run(std::function<void()> job) {
  {
    std::lock_guard lock(m_);
    queued_.push_back(std::move(job));
  }
  cv_.notify_one();
}

bool TaskGroup::run_one(std::unique_lock<std::mutex>& lock) {
  if (queued_.empty()) return false;
  std::function<void()> job = std::move(queued_.front());
  queued_.pop_front();
  ++running_;
  lock.unlock();
  std::exception_ptr err;
  try {
    job();
  } catch (...) {
    err = std::current_exception();
  }
  lock.lock();
  if (err && !error_) error_ = err;
  --running_;
  if (queued_.empty() && running_ == 0) cv_.notify_all();  // wait() may be done
  return true;
}

void TaskGroup::work() {
  std::unique_lock lock(m_);
  for (;;) {
    cv_.wait(lock, [&] { return stop_ || !queued_.empty(); });
    if (stop_) return;
    run_one(lock);
  }
}

void TaskGroup::wait() {
  std::unique_lock lock(m_);
  for (;;) {
    if (run_one(lock)) continue;
    if (running_ == 0) break;
    // A running job may still queue more: wake for either.
    cv_.wait(lock, [&] { return !queued_.empty() || running_ == 0; });
  }
  if (error_) {
    std::exception_ptr err = error_;
    error_ = nullptr;
    std::rethrow_exception(err);
  }
}

}  // namespace whyslow
