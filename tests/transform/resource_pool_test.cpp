// transform/cuda/resource_pool.h (host-only code, tested here without a GPU): take, give,
// leases that return only succeeded objects, announced objects waited for, free_count() and
// clear().
#include <gtest/gtest.h>

#include <memory>
#include <thread>

#include "transform/cuda/resource_pool.h"

namespace gj2k::transform::cuda {
namespace {

struct Counted {
  explicit Counted(int* live) : live_(live) { ++*live_; }
  ~Counted() { --*live_; }
  int* live_;
};

TEST(XformResourcePool, TakeGiveLeaseAndClear) {
  int live = 0, made = 0;
  Pool<Counted> pool([&] {
    ++made;
    return std::make_unique<Counted>(&live);
  });
  {
    Lease<Counted> a(pool), b(pool);
    EXPECT_EQ(made, 2);
    a.succeeded();  // a comes back; b's work "failed": destroyed
  }
  EXPECT_EQ(live, 1);
  {
    Lease<Counted> c(pool);  // reuses a
    EXPECT_EQ(made, 2);
    c.succeeded();
  }
  // clear() frees the idle object; one held by a lease stays and comes back afterwards.
  Lease<Counted> held(pool);
  EXPECT_EQ(pool.clear(), 0u);  // the only object is held
  held.succeeded();
  {
    Lease<Counted> other(pool);  // a new one: the held object is still out
    EXPECT_EQ(made, 3);
    other.succeeded();
  }
  EXPECT_EQ(live, 2);
  EXPECT_EQ(pool.free_count(), 1u);  // `other`; `held` is still out
  EXPECT_EQ(pool.clear(), 1u);
  EXPECT_EQ(pool.free_count(), 0u);
  EXPECT_EQ(live, 1);  // the held one is still out
}

TEST(XformResourcePool, TakeWaitsForAnnouncedObjects) {
  int live = 0, made = 0;
  Pool<Counted> pool([&] {
    ++made;
    return std::make_unique<Counted>(&live);
  });
  pool.expect(1);
  std::thread warm([&] { pool.fulfil(std::make_unique<Counted>(&live)); });
  std::unique_ptr<Counted> got = pool.take();  // waits for the announced one: none made
  warm.join();
  EXPECT_NE(got, nullptr);
  EXPECT_EQ(made, 0);
  pool.give(std::move(got));
  EXPECT_EQ(pool.clear(), 1u);
  EXPECT_EQ(live, 0);
  EXPECT_EQ(pool.try_take(), nullptr);
}

}  // namespace
}  // namespace gj2k::transform::cuda
