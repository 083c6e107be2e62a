// The gateway's bounded output: a gateway in this process with small output limits, so a
// client that does not read reaches them quickly; real sockets on 127.0.0.1.
#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/io/middleman.hpp>
#include <caf/send.hpp>
#include <catch2/catch.hpp>
#include <mutex>

#include "actors/data_manager_actor.hpp"
#include "actors/dyper_gateway_actor.hpp"
#include "messages/type_registry.hpp"
#include "tests/gateway_test_support.hpp"

using namespace perfdm;
using namespace perfdm::gateway_test;

namespace {

struct gateway_config : caf::actor_system_config {
  gateway_config() {
    register_message_types(*this);
    load<caf::io::middleman>();
    set("logger.console", caf::atom("none"));
  }
};

class in_process_gateway {
 public:
  explicit in_process_gateway(gateway_options o) : system_(config_) {
    dm_ = spawn_data_manager(system_);
    o.targets.emplace(data_manager_target, dm_);
    o.note = [this](const std::string& what) {
      std::lock_guard<std::mutex> lock(mutex_);
      notes_ += what + "\n";
    };
    auto started = start_dyper_gateway(system_, std::move(o));
    if (!started) throw std::runtime_error(system_.render(started.error()));
    gateway_ = started->first;
    port_ = started->second;
  }
  ~in_process_gateway() {
    caf::anon_send_exit(gateway_, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(dm_, caf::exit_reason::user_shutdown);
  }
  std::uint16_t port() const { return port_; }
  std::string notes() {
    std::lock_guard<std::mutex> lock(mutex_);
    return notes_;
  }

 private:
  gateway_config config_;
  caf::actor_system system_;
  caf::actor dm_, gateway_;
  std::uint16_t port_ = 0;
  std::mutex mutex_;
  std::string notes_;
};

gateway_options small_limits() {
  gateway_options o;
  o.pause_output_bytes = 64 << 10;
  o.max_output_bytes = 1 << 20;
  return o;
}

}  // namespace

TEST_CASE("gateway: a client whose events pile up unread is disconnected, its streams closed",
          "[gateway][slow]") {
  in_process_gateway gateway(small_limits());
  client sleeper(gateway.port()), busy(gateway.port());
  CHECK(sleeper.ask(dm("STREAM")) == "<DYPER_REPLY ID='DM'><STREAM ID='0'/></DYPER_REPLY>");
  CHECK(busy.ask(dm("STREAM")) == "<DYPER_REPLY ID='DM'><STREAM ID='1'/></DYPER_REPLY>");
  // Every DEFINE announces a 100 KB name to both streams; the sleeper reads none of it.
  // 40 MB is more than the kernel's socket buffers on loopback can hold.
  const std::string long_name(100 * 1000, 'n');
  for (int i = 0; i < 400; ++i) {
    std::vector<std::string> events;
    auto reply =
        busy.ask(dm("DEFINE", "<METRIC NAME='" + std::to_string(i) + long_name + "'/>"), &events);
    REQUIRE(reply.find("<METRIC ID='" + std::to_string(i) + "'") != std::string::npos);
    REQUIRE(events.size() == 1);  // the busy client's own stream, read as it goes
    if (gateway.notes().find("does not read") != std::string::npos) break;
  }
  CHECK(eventually([&] { return gateway.notes().find("does not read") != std::string::npos; }));
  // T3: the sleeper's stream was closed for it.
  CHECK(eventually([&] {
    return busy.ask(dm("CLOSE", "<STREAM ID='0'/>")).find("stream 0 was closed") !=
           std::string::npos;
  }));
  CHECK(sleeper.closed_by_peer());
  CHECK(busy.ask(dm("PING")) == "<DYPER_REPLY ID='DM'>PONG</DYPER_REPLY>");
}

TEST_CASE("gateway: a client that reads slowly is paused, not dropped, and loses nothing",
          "[gateway][slow]") {
  in_process_gateway gateway(small_limits());
  client setup(gateway.port());
  const std::string name(1000, 'm');
  for (int i = 0; i < 100; ++i)
    setup.ask(dm("DEFINE", "<METRIC NAME='" + std::to_string(1000 + i) + name + "'/>"));
  auto metrics = setup.ask(dm("METRICS"));
  REQUIRE(metrics.size() > 100 * 1000);

  // 300 METRICS requests (about 30 MB of replies) sent at once, nothing read for a while.
  client slow(gateway.port());
  std::string batch;
  for (int i = 0; i < 300; ++i) batch += frame_message(dm("METRICS"));
  slow.send_raw(batch);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // let the output pile up
  // Others are served meanwhile.
  CHECK(setup.ask(dm("PING")) == "<DYPER_REPLY ID='DM'>PONG</DYPER_REPLY>");
  // Then every reply arrives, whole and in order.
  for (int i = 0; i < 300; ++i) {
    auto f = slow.next();
    REQUIRE(f.kind == dyper_frame::reply);
    REQUIRE(f.text == metrics);
  }
  CHECK(gateway.notes() == "");  // no note at all, "does not read" among them
  CHECK(slow.ask(dm("PING")) == "<DYPER_REPLY ID='DM'>PONG</DYPER_REPLY>");
}

TEST_CASE("gateway: a client that sends thousands of requests at once gets every reply, in order",
          "[gateway][slow]") {
  in_process_gateway gateway(small_limits());
  client flood(gateway.port());
  // More than the gateway lets wait on one connection (it stops reading, and reads again as
  // the queue drains): the sender blocks on TCP now and then, nothing is lost.
  constexpr int requests = 5000;
  std::string batch;
  for (int i = 0; i < requests; ++i)
    batch += frame_message(
        i % 2 ? dm("PING") : "<DYPER PID='DM' COMMAND='PING' ID='" + std::to_string(i) + "'/>");
  std::thread sender([&] { flood.send_raw(batch); });
  int answered = 0;
  for (int i = 0; i < requests; ++i) {
    auto f = flood.next();
    REQUIRE(f.kind == dyper_frame::reply);
    if (i % 2)
      REQUIRE(f.text == "<DYPER_REPLY ID='DM'>PONG</DYPER_REPLY>");
    else
      REQUIRE(f.text.find("ERROR='BAD_ARGUMENT'") != std::string::npos);
    ++answered;
  }
  sender.join();
  CHECK(answered == requests);
  CHECK(flood.ask(dm("PING")) == "<DYPER_REPLY ID='DM'>PONG</DYPER_REPLY>");
}
