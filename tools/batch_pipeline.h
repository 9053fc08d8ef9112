// The CLI's batches (gj2k decode/encode with several inputs): reading, coding and writing
// overlap. A reader thread loads the inputs in order, at most one ahead of the coders; the
// coders (codec::batch_workers of them: several small images at once, codec/batch.h) code
// them; `writers` writer threads store the outputs as they come (several for outputs large
// enough that one thread's writes would hold the coders back). A job that fails at any stage is
// reported and the others go on.
#pragma once

#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace gj2k::cli {

template <class In, class Out>
struct BatchStages {
  std::function<In(size_t job)> read;                 // on the reader thread, in job order
  std::function<Out(size_t job, In input)> code;      // on a coder thread
  std::function<void(size_t job, Out output)> write;  // on a writer thread
  // A stage of `job` threw `error`; called from the coders and the writers, one at a time.
  std::function<void(size_t job, const std::exception& error)> failed;
};

// Runs jobs [0, n) through the stages with `coders` coder threads and `writers` writer threads;
// returns how many failed.
template <class In, class Out>
size_t run_batch(size_t n, int coders, const BatchStages<In, Out>& stages, int writers = 1) {
  constexpr size_t kReadAhead = 1;  // inputs read beyond those the coders hold
  writers = std::max(1, writers);
  // outputs waiting for the writers before coders wait
  const size_t write_queue = 2 * static_cast<size_t>(writers);
  std::mutex mutex, failed_mutex;
  std::condition_variable changed;
  std::vector<In> inputs(n);  // In is default-constructible and movable
  std::vector<std::exception_ptr> read_errors(n);
  std::vector<char> read_done(n, 0);
  size_t claimed = 0, coders_left = static_cast<size_t>(coders), failures = 0;
  std::deque<std::pair<size_t, Out>> outputs;

  auto fail = [&](size_t job, std::exception_ptr error) {
    std::lock_guard lock(failed_mutex);
    ++failures;
    try {
      std::rethrow_exception(error);
    } catch (const std::exception& e) {
      stages.failed(job, e);
    } catch (...) {
      stages.failed(job, std::runtime_error("unknown failure"));
    }
  };
  std::jthread reader([&] {
    for (size_t k = 0; k < n; ++k) {
      {
        std::unique_lock lock(mutex);
        changed.wait(lock, [&] { return k < claimed + kReadAhead; });
      }
      In input{};
      std::exception_ptr error;
      try {
        input = stages.read(k);
      } catch (...) {
        error = std::current_exception();
      }
      std::lock_guard lock(mutex);
      inputs[k] = std::move(input);
      read_errors[k] = error;
      read_done[k] = 1;
      changed.notify_all();
    }
  });
  auto write = [&] {
    for (;;) {
      std::unique_lock lock(mutex);
      changed.wait(lock, [&] { return !outputs.empty() || coders_left == 0; });
      if (outputs.empty()) return;
      auto [job, output] = std::move(outputs.front());
      outputs.pop_front();
      changed.notify_all();
      lock.unlock();
      try {
        stages.write(job, std::move(output));
      } catch (...) {
        fail(job, std::current_exception());
      }
    }
  };
  std::vector<std::jthread> writer_threads;
  for (int w = 0; w < writers; ++w) writer_threads.emplace_back(write);
  auto code = [&] {
    for (;;) {
      std::unique_lock lock(mutex);
      if (claimed == n) break;
      const size_t k = claimed++;
      changed.notify_all();
      changed.wait(lock, [&] { return read_done[k] != 0; });
      In input = std::move(inputs[k]);
      inputs[k] = In{};
      const std::exception_ptr read_error = read_errors[k];
      lock.unlock();
      if (read_error) {
        fail(k, read_error);
        continue;
      }
      try {
        Out output = stages.code(k, std::move(input));
        lock.lock();
        changed.wait(lock, [&] { return outputs.size() < write_queue; });
        outputs.emplace_back(k, std::move(output));
        changed.notify_all();
      } catch (...) {
        fail(k, std::current_exception());
      }
    }
    std::lock_guard lock(mutex);
    --coders_left;
    changed.notify_all();
  };
  {
    std::vector<std::jthread> pool;
    for (int c = 1; c < coders; ++c) pool.emplace_back(code);
    code();
  }
  reader.join();
  for (std::jthread& w : writer_threads) w.join();
  return failures;
}

}  // namespace gj2k::cli
