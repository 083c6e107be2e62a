#include "cli/engine_controller.hpp"

#include <caf/send.hpp>

#include "actors/dyper_controller_dialer_actor.hpp"
#include "cli/dm_log_writer.hpp"
#include "cli/host_port.hpp"

namespace perfdm {

bool engine_controller::start(session& s, const std::string& address,
                              const std::string& default_log, std::ostream& err) {
  auto where = parse_host_port(address);
  if (!where || where->port == 0) {
    err << "perfdm: --controller takes HOST:PORT of DyPer's controller (e.g. 127.0.0.1:47001), "
           "not '"
        << address << "'\n";
    return false;
  }
  controller_options o;
  o.host = where->host;
  o.port = where->port;
  o.data_manager = s.data_manager();
  log_writer_ = spawn_dm_log_writer(s.system(), s.data_manager(), s.log_job(), default_log);
  o.log_writer = log_writer_;
  auto started = start_dyper_controller_dialer(s.system(), std::move(o));
  if (!started) {
    err << "perfdm: cannot start dialing " << address << ": " << s.system().render(started.error())
        << '\n';
    stop();
    return false;
  }
  dialer_ = *started;
  err << "perfdm: controller " << where->host << ':' << where->port << std::endl;
  return true;
}

void engine_controller::stop() {
  if (dialer_) caf::anon_send_exit(dialer_, caf::exit_reason::user_shutdown);
  if (log_writer_) caf::anon_send_exit(log_writer_, caf::exit_reason::user_shutdown);
  dialer_ = nullptr;
  log_writer_ = nullptr;
}

}  // namespace perfdm
