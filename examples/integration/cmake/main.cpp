// An order loop instrumented with perfdm: one `order` frame per order (orders.frames).
// `orders [SECONDS]` runs for SECONDS (default 10), about a thousand orders a second.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "orders_frames.h"

int main(int argc, char** argv) {
  using namespace std::chrono;
  const double seconds = argc > 1 ? std::atof(argv[1]) : 10;
  std::printf("orders: pid %d, running %g s\n", int(getpid()), seconds);
  std::fflush(stdout);
  const auto end = steady_clock::now() + duration<double>(seconds);
  for (unsigned long n = 0; steady_clock::now() < end; ++n) {
    perfdm_order_frame f;
    PERFDM_order_SET_filled(&f, 1);
    PERFDM_order_SET_latency_us(&f, 50.0 + double(n % 100));
    PERFDM_order_SET_side(&f, n % 2);
    perfdm_write_order(&f);  // one predictable branch while perfdm does not observe
    std::this_thread::sleep_for(milliseconds(1));
  }
  return 0;
}
