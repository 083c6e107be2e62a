#include "cli/engine_listener.hpp"

#include <caf/send.hpp>

#include "actors/dyper_gateway_actor.hpp"
#include "cli/dm_log_writer.hpp"
#include "cli/host_port.hpp"

namespace perfdm {

bool engine_listener::start(session& s, const std::string& address, const std::string& default_log,
                            std::ostream& err,
                            std::shared_ptr<std::atomic<std::int64_t>> open_connections) {
  auto where = parse_host_port(address);
  if (!where) {
    err << "perfdm: --listen takes HOST:PORT (e.g. 127.0.0.1:0), not '" << address << "'\n";
    return false;
  }
  gateway_options o;
  o.host = where->host;
  o.port = where->port;
  o.targets.emplace(data_manager_target, s.data_manager());
  log_writer_ = spawn_dm_log_writer(s.system(), s.data_manager(), s.log_job(), default_log);
  o.log_writer = log_writer_;
  o.open_connections = std::move(open_connections);
  auto started = start_dyper_gateway(s.system(), std::move(o));
  if (!started) {
    err << "perfdm: cannot listen on " << address << ": " << s.system().render(started.error())
        << '\n';
    stop();
    return false;
  }
  gateway_ = started->first;
  err << "perfdm: listening on " << where->host << ':' << started->second << std::endl;
  return true;
}

void engine_listener::stop() {
  if (gateway_) caf::anon_send_exit(gateway_, caf::exit_reason::user_shutdown);
  if (log_writer_) caf::anon_send_exit(log_writer_, caf::exit_reason::user_shutdown);
  gateway_ = nullptr;
  log_writer_ = nullptr;
}

}  // namespace perfdm
