#include "cli/engine_publisher.hpp"

#include <caf/function_view.hpp>
#include <caf/io/middleman.hpp>
#include <caf/openssl/manager.hpp>
#include <caf/openssl/publish.hpp>
#include <caf/send.hpp>

#include "actors/remote_bridge_actor.hpp"
#include "cli/dm_log_writer.hpp"
#include "cli/host_port.hpp"

namespace perfdm {

void add_publish_options(CLI::App& engine, publish_options& o) {
  engine.add_option("--publish", o.address,
                    "also publish the data manager to remote actors (perfdm client, daemons) "
                    "on [HOST:]PORT, loopback unless a host is given; port 0 picks one; the "
                    "engine then runs until SIGINT/SIGTERM");
  add_remote_options(engine, o.remote);
}

bool configure_publishing(session_options& session, const publish_options& o, std::ostream& err) {
  if (o.address.empty()) return true;
  if (auto problem = remote_options_problem(o.remote); !problem.empty()) {
    err << "perfdm: --publish: " << problem << '\n';
    return false;
  }
  session.configure = [remote = o.remote](caf::actor_system_config& cfg) {
    configure_remote(cfg, remote);
  };
  return true;
}

bool engine_publisher::start(session& s, const publish_options& o, const std::string& default_log,
                             std::ostream& err) {
  if (o.address.empty()) return true;
  auto where = parse_host_port(o.address);
  if (!where) {
    err << "perfdm: --publish takes [HOST:]PORT (e.g. 127.0.0.1:0 or 0), not '" << o.address
        << "'\n";
    return false;
  }
  system_ = &s.system();
  log_writer_ = spawn_dm_log_writer(s.system(), s.data_manager(), s.log_job(), default_log);
  bridge_ = spawn_remote_bridge(s.system(), s.data_manager(), log_writer_);
  tls_ = o.remote.tls();
  auto port = tls_ ? caf::openssl::publish(bridge_, where->port, where->host.c_str())
                   : s.system().middleman().publish(bridge_, where->port, where->host.c_str());
  if (!port) {
    err << "perfdm: cannot publish on " << o.address << ": " << s.system().render(port.error())
        << '\n';
    stop();
    return false;
  }
  port_ = *port;
  err << "perfdm: publishing on " << where->host << ':' << port_ << (tls_ ? " (TLS)" : "")
      << std::endl;
  return true;
}

void engine_publisher::stop() {
  if (bridge_) {
    // (Debian's caf/openssl/unpublish.hpp does not compile: it leaves out the address.)
    if (port_ && tls_)
      caf::make_function_view(system_->openssl_manager().actor_handle())(caf::unpublish_atom::value,
                                                                         bridge_.address(), port_);
    else if (port_)
      system_->middleman().unpublish(bridge_, port_);
    caf::anon_send_exit(bridge_, caf::exit_reason::user_shutdown);
  }
  if (log_writer_) caf::anon_send_exit(log_writer_, caf::exit_reason::user_shutdown);
  bridge_ = nullptr;
  log_writer_ = nullptr;
  port_ = 0;
}

}  // namespace perfdm
