// The WebSocket's bounded output (docs/DASHBOARD.md §2): a dashboard server in this process
// with small output limits (the engine's are 4 MiB and 64 MiB), so that a WebSocket client
// that stops reading reaches them quickly; real sockets on 127.0.0.1. The decision is the
// connection actor's shared with the TCP gateway (tests/gateway_slow_client_test.cpp); this
// checks the WebSocket's side of it: the close code, the streams closed, the others served.
#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/send.hpp>
#include <catch2/catch.hpp>
#include <mutex>

#include "actors/data_manager_actor.hpp"
#include "http/http_server.hpp"
#include "messages/type_registry.hpp"
#include "tests/dashboard_test_support.hpp"

using namespace perfdm;
using namespace perfdm::dashboard_test;
using gateway_test::dm;

namespace {

struct server_config : caf::actor_system_config {
  server_config() {
    register_message_types(*this);
    set("logger.console", caf::atom("none"));
  }
};

class in_process_dashboard {
 public:
  in_process_dashboard() : system_(config_) {
    dm_ = spawn_data_manager(system_);
    auto gateway = std::make_shared<gateway_options>();
    gateway->targets.emplace(data_manager_target, dm_);
    gateway->pause_output_bytes = 64 << 10;
    gateway->max_output_bytes = 1 << 20;
    gateway->note = [this](const std::string& what) {
      std::lock_guard<std::mutex> lock(mutex_);
      notes_ += what + "\n";
    };
    http_server_options o;
    o.gateway = gateway;
    auto started = http_server::start(system_, std::move(o));
    if (!started) throw std::runtime_error(system_.render(started.error()));
    server_ = std::move(*started);
  }
  ~in_process_dashboard() {
    server_->stop();
    caf::anon_send_exit(dm_, caf::exit_reason::user_shutdown);
  }
  std::uint16_t port() const { return server_->port(); }
  std::string notes() {
    std::lock_guard<std::mutex> lock(mutex_);
    return notes_;
  }

 private:
  server_config config_;
  caf::actor_system system_;
  caf::actor dm_;
  std::unique_ptr<http_server> server_;
  std::mutex mutex_;
  std::string notes_;
};

}  // namespace

TEST_CASE("dashboard: a WebSocket client that stops reading is closed with 1008, others unharmed",
          "[dashboard][websocket][slow]") {
  in_process_dashboard server;
  ws_client sleeper(server.port()), busy(server.port());
  CHECK(sleeper.ask(dm("STREAM")) == "<DYPER_REPLY ID='DM'><STREAM ID='0'/></DYPER_REPLY>");
  CHECK(busy.ask(dm("STREAM")) == "<DYPER_REPLY ID='DM'><STREAM ID='1'/></DYPER_REPLY>");
  // Every DEFINE announces a 100 KB name to both streams; the sleeper reads none of it. 40 MB
  // is more than the kernel's socket buffers on loopback hold, so its output piles up past
  // the 1 MiB limit.
  const std::string long_name(100 * 1000, 'n');
  bool disconnected = false;
  for (int i = 0; i < 400 && !disconnected; ++i) {
    std::vector<std::string> events;
    auto reply =
        busy.ask(dm("DEFINE", "<METRIC NAME='" + std::to_string(i) + long_name + "'/>"), &events);
    REQUIRE(reply.find("<METRIC ID='" + std::to_string(i) + "'") != std::string::npos);
    REQUIRE(events.size() == 1);  // the busy client's own stream, read as it goes
    disconnected = server.notes().find("does not read") != std::string::npos;
  }
  REQUIRE(disconnected);
  // The sleeper reads again (within the close's 2 s grace): what was sent before the decision,
  // then the close frame, 1008 with the reason; nothing more.
  std::size_t backlog = 0;
  try {
    for (;;) {
      sleeper.next();
      ++backlog;
    }
  } catch (const std::exception&) {
  }
  CHECK(backlog < 400);
  CHECK(sleeper.close_reason().code ==
        static_cast<std::uint16_t>(websocket::close_code::policy_error));
  CHECK(sleeper.close_reason().reason == "too much output unread");
  // T3: the sleeper's stream was closed for it; the busy client goes on, and a new one is
  // served.
  CHECK(eventually([&] {
    return busy.ask(dm("CLOSE", "<STREAM ID='0'/>")).find("stream 0 was closed") !=
           std::string::npos;
  }));
  CHECK(busy.ask(dm("PING")) == "<DYPER_REPLY ID='DM'>PONG</DYPER_REPLY>");
  ws_client after(server.port());
  CHECK(after.ask(dm("PING")) == "<DYPER_REPLY ID='DM'>PONG</DYPER_REPLY>");
}
