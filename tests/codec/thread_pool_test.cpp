// core/thread_pool.h: every index once, grain and static blocks, the thread limit, nesting,
// exceptions (the lowest index's), concurrent callers of one pool, and that a pool's threads
// end with it.
#include "core/thread_pool.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

using gj2k::core::parallel_blocks;
using gj2k::core::parallel_for;
using gj2k::core::ThreadPool;
using gj2k::core::ThreadScope;

// Threads of this process now.
size_t task_count() {
  size_t n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator("/proc/self/task")) ++n;
  return n;
}

// task_count() once it is `want`, or after a second: a joined thread may stay listed in
// /proc/self/task for a moment (the kernel finishes its exit after pthread_join returns).
size_t task_count_settled(size_t want) {
  size_t n = task_count();
  for (int i = 0; i < 1000 && n != want; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    n = task_count();
  }
  return n;
}

// Distinct threads that ran fn's calls, under a lock.
class ThreadSet {
 public:
  void add() {
    const std::lock_guard lock(mutex_);
    ids_.insert(std::this_thread::get_id());
  }
  size_t size() const { return ids_.size(); }

 private:
  std::mutex mutex_;
  std::set<std::thread::id> ids_;
};

TEST(ThreadPool, EveryIndexOnceForEachGrain) {
  ThreadPool pool(4);
  const ThreadScope scope(4, &pool);
  for (size_t grain : {size_t{1}, size_t{3}, size_t{64}, size_t{5000}}) {
    for (size_t n : {size_t{0}, size_t{1}, size_t{2}, size_t{1000}, size_t{4099}}) {
      std::vector<std::atomic<int>> hits(n + 10);
      parallel_for(10, 10 + n, grain, [&](size_t i) { hits[i].fetch_add(1); });
      for (size_t i = 0; i < 10; ++i) EXPECT_EQ(hits[i].load(), 0);
      for (size_t i = 10; i < n + 10; ++i)
        ASSERT_EQ(hits[i].load(), 1) << "index " << i << " grain " << grain << " n " << n;
    }
  }
}

TEST(ThreadPool, ZeroAndOneItem) {
  ThreadPool pool(3);
  const ThreadScope scope(3, &pool);
  int calls = 0;
  parallel_for(5, 5, 1, [&](size_t) { ++calls; });
  parallel_for(7, 3, 1, [&](size_t) { ++calls; });  // empty: end before begin
  parallel_blocks(0, [&](size_t, size_t) { ++calls; });
  EXPECT_EQ(calls, 0);
  std::thread::id ran;
  parallel_for(9, 10, 1, [&](size_t i) {
    EXPECT_EQ(i, 9u);
    ran = std::this_thread::get_id();
    ++calls;
  });
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(ran, std::this_thread::get_id());  // one item runs on the caller
}

TEST(ThreadPool, ChunksOfGrainStayOnOneThreadInOrder) {
  ThreadPool pool(4);
  const ThreadScope scope(4, &pool);
  constexpr size_t kN = 2000, kGrain = 16;
  std::vector<std::thread::id> who(kN);
  std::vector<std::chrono::steady_clock::time_point> when(kN);
  parallel_for(0, kN, kGrain, [&](size_t i) {
    who[i] = std::this_thread::get_id();
    when[i] = std::chrono::steady_clock::now();
  });
  for (size_t i = 0; i < kN; ++i) {
    const size_t first = i / kGrain * kGrain;
    EXPECT_EQ(who[i], who[first]) << i;
    if (i > first) {  // in index order within a chunk
      EXPECT_GE(when[i], when[i - 1]) << i;
    }
  }
}

TEST(ThreadPool, StaticBlocksSplitAsOpenMPDoes) {
  ThreadPool pool(4);
  const ThreadScope scope(4, &pool);
  for (size_t n : {size_t{1}, size_t{3}, size_t{4}, size_t{10}, size_t{1001}}) {
    std::mutex mutex;
    std::vector<std::pair<size_t, size_t>> blocks;
    parallel_blocks(n, [&](size_t first, size_t last) {
      const std::lock_guard lock(mutex);
      blocks.emplace_back(first, last);
    });
    std::sort(blocks.begin(), blocks.end());
    ASSERT_EQ(blocks.size(), std::min<size_t>(n, 4)) << n;
    size_t at = 0;
    for (size_t k = 0; k < blocks.size(); ++k) {
      EXPECT_EQ(blocks[k].first, at);
      // The first n % blocks blocks have one index more.
      const size_t size = n / blocks.size() + (k < n % blocks.size() ? 1 : 0);
      EXPECT_EQ(blocks[k].second - blocks[k].first, size) << n << " block " << k;
      at = blocks[k].second;
    }
    EXPECT_EQ(at, n);
  }
}

TEST(ThreadPool, LoopsUseAtMostTheirThreadCount) {
  ThreadPool pool(4);
  const ThreadScope scope(4, &pool);
  auto run = [&](int threads) {
    ThreadSet seen;
    parallel_for(
        0, 64, 1,
        [&](size_t) {
          seen.add();
          std::this_thread::sleep_for(std::chrono::milliseconds(2));
        },
        threads);
    return seen.size();
  };
  EXPECT_EQ(run(1), 1u);
  EXPECT_LE(run(2), 2u);
  const size_t all = run(0);  // the scope's 4
  EXPECT_LE(all, 4u);
  EXPECT_GE(all, 2u);  // 64 sleeping items: the workers join in
  {
    const ThreadScope three(3);
    EXPECT_EQ(gj2k::core::max_threads(), 3);
    EXPECT_LE(run(0), 3u);
  }
  EXPECT_EQ(gj2k::core::max_threads(), 4);
  EXPECT_LE(run(16), 4u);  // never more than the pool has
}

TEST(ThreadPool, NestedLoopsRunInlineOnTheirThread) {
  ThreadPool pool(4);
  const ThreadScope scope(4, &pool);
  std::atomic<int> mismatched{0}, inner_calls{0};
  EXPECT_FALSE(gj2k::core::in_parallel());
  parallel_for(0, 32, 1, [&](size_t) {
    EXPECT_TRUE(gj2k::core::in_parallel());
    const std::thread::id outer = std::this_thread::get_id();
    parallel_for(0, 100, 1, [&](size_t) {
      if (std::this_thread::get_id() != outer) mismatched.fetch_add(1);
      inner_calls.fetch_add(1);
    });
    parallel_blocks(50, [&](size_t first, size_t last) {
      if (first != 0 || last != 50) mismatched.fetch_add(1);  // one block: serial
    });
  });
  EXPECT_EQ(mismatched.load(), 0);
  EXPECT_EQ(inner_calls.load(), 3200);
  EXPECT_FALSE(gj2k::core::in_parallel());
}

TEST(ThreadPool, TheLowestIndexExceptionIsRethrown) {
  ThreadPool pool(4);
  const ThreadScope scope(4, &pool);
  for (int round = 0; round < 30; ++round) {
    std::atomic<int> ran{0};
    try {
      parallel_for(0, 1000, 1 + round % 3, [&](size_t i) {
        ran.fetch_add(1);
        if (i == 37 || i == 38 || i == 500 || i == 999) throw std::runtime_error(std::to_string(i));
      });
      FAIL() << "no exception";
    } catch (const std::runtime_error& e) {
      EXPECT_STREQ(e.what(), "37");
    }
    EXPECT_GE(ran.load(), 38);  // every index before the first failure ran
  }
  // The pool works on after a failed loop.
  std::atomic<size_t> sum{0};
  parallel_for(0, 100, 1, [&](size_t i) { sum.fetch_add(i); });
  EXPECT_EQ(sum.load(), 4950u);
  // Serial (one thread): the same exception, as a plain loop throws it.
  EXPECT_THROW(parallel_for(
                   0, 10, 1,
                   [](size_t i) {
                     if (i == 3) throw std::logic_error("3");
                   },
                   1),
               std::logic_error);
}

TEST(ThreadPool, SeveralCallersShareOnePool) {
  ThreadPool pool(3);
  std::vector<uint64_t> sums(4);
  std::vector<std::thread> callers;
  for (size_t t = 0; t < sums.size(); ++t)
    callers.emplace_back([&, t] {
      const ThreadScope scope(3, &pool);
      for (int round = 0; round < 20; ++round) {
        std::vector<uint64_t> v(5000);
        parallel_for(0, v.size(), 7, [&](size_t i) { v[i] = i * (t + 1); });
        for (uint64_t x : v) sums[t] += x;
      }
    });
  for (std::thread& c : callers) c.join();
  for (size_t t = 0; t < sums.size(); ++t) EXPECT_EQ(sums[t], 20u * 4999u * 5000u / 2 * (t + 1));
}

TEST(ThreadPool, ThreadsEndWithThePool) {
  const size_t before = task_count();
  {
    ThreadPool pool(5);
    EXPECT_EQ(pool.threads(), 5);
    EXPECT_EQ(task_count(), before + 4);
    const ThreadScope scope(5, &pool);
    std::atomic<int> n{0};
    parallel_for(0, 100, 1, [&](size_t) { n.fetch_add(1); });
    EXPECT_EQ(n.load(), 100);
  }
  EXPECT_EQ(task_count_settled(before), before);
  {
    ThreadPool growable(2, /*growable=*/true);
    growable.grow(4);
    EXPECT_EQ(growable.threads(), 4);
    growable.grow(3);  // never shrinks
    EXPECT_EQ(growable.threads(), 4);
    ThreadPool fixed(2);
    fixed.grow(6);
    EXPECT_EQ(fixed.threads(), 2);
  }
  EXPECT_EQ(task_count_settled(before), before);
}

}  // namespace
