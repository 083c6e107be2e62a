#include "cli/client_command.hpp"

#include <algorithm>
#include <atomic>
#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/io/middleman.hpp>
#include <caf/openssl/remote_actor.hpp>
#include <caf/scoped_actor.hpp>
#include <caf/send.hpp>
#include <caf/stateful_actor.hpp>
#include <cctype>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <future>
#include <istream>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <ostream>
#include <sstream>
#include <thread>

#include "actors/remote_client_actor.hpp"
#include "cli/host_port.hpp"
#include "cli/stop_signals.hpp"
#include "messages/dm_error.hpp"
#include "messages/remote_interface.hpp"
#include "messages/short_request.hpp"
#include "messages/type_registry.hpp"
#include "messages/xml_codec.hpp"

namespace perfdm {

namespace {

// The requests of the command line (groups of words between lone ";"), or of `in`.
std::vector<std::vector<std::string>> requests_of(const client_options& o, std::istream& in) {
  std::vector<std::vector<std::string>> out;
  if (!o.words.empty()) {
    out.emplace_back();
    for (auto& w : o.words) {
      if (w == ";")
        out.emplace_back();
      else
        out.back().push_back(w);
    }
    return out;
  }
  std::string line;
  while (std::getline(in, line)) {
    auto t = std::string(trim(line));
    if (t.empty() || t[0] == '#') continue;
    if (t[0] == '<') {
      out.push_back({t});
      continue;
    }
    std::istringstream words(t);
    out.emplace_back();
    for (std::string w; words >> w;) out.back().push_back(w);
  }
  return out;
}

// `$STREAM` replaced by the last stream opened; false when there is none.
bool substitute_stream(std::string& xml, std::uint64_t last_stream) {
  const std::string key = "$STREAM";
  for (auto at = xml.find(key); at != std::string::npos; at = xml.find(key, at)) {
    if (last_stream == no_stream) return false;
    auto id = std::to_string(last_stream);
    xml.replace(at, key.size(), id);
    at += id.size();
  }
  return true;
}

}  // namespace

CLI::App* add_client_command(CLI::App& app, client_options& o) {
  auto* cmd = app.add_subcommand(
      "client",
      "Send requests to an engine published with `perfdm engine --publish` (CAF's network "
      "layer, typed interface) and print the replies and stream events as XML, one per line");
  cmd->add_option("ADDRESS", o.address, "HOST:PORT of `perfdm engine --publish`")->required();
  cmd->add_option("REQUEST", o.words,
                  "XML, or COMMAND [ELEMENT] [NAME=VALUE ...] (e.g. ENABLE STREAM=0 METRIC=cpu); "
                  "';' separates requests; $STREAM is the last stream opened; without it, "
                  "requests are read from standard input, one per line");
  cmd->add_option("--target", o.target, "the PID of short-form requests (default DM)");
  cmd->add_flag("--watch", o.watch,
                "after the requests, keep printing stream events until Ctrl-C or SIGTERM");
  cmd->add_option("--timeout", o.timeout_seconds,
                  "seconds to wait for the connection and for each reply (0: forever; "
                  "default 60)")
      ->check(CLI::NonNegativeNumber);
  add_remote_options(*cmd, o.remote);
  return cmd;
}

int run_client_command(const client_options& o, std::istream& in, std::ostream& out,
                       std::ostream& err) {
  auto where = parse_host_port(o.address);
  if (!where) {
    err << "perfdm client: the address is HOST:PORT, not '" << o.address << "'\n";
    return 2;
  }
  // Every request is read and built before connecting: a typo costs no connection.
  std::vector<std::string> requests;
  for (auto& words : requests_of(o, in)) {
    std::string why;
    auto xml = short_request_xml(words, o.target, why);
    if (!xml) {
      err << "perfdm client: " << why << '\n';
      return 2;
    }
    requests.push_back(*xml);
  }
  if (auto problem = remote_options_problem(o.remote); !problem.empty()) {
    err << "perfdm client: " << problem << '\n';
    return 2;
  }
  if (o.watch) {
    install_stop_signals();
  }
  remote_peer_config cfg(o.remote);
  caf::actor_system sys{cfg};
  const auto wait = o.timeout_seconds > 0
                        ? std::chrono::duration<double>(o.timeout_seconds)
                        : std::chrono::duration<double>(std::chrono::hours(24 * 365 * 10));
  const auto reply_wait = std::chrono::duration_cast<std::chrono::milliseconds>(wait);

  const auto connecting = std::chrono::steady_clock::now();
  auto connected = connect_remote_dm(sys, *where, o.remote, wait);
  // A closed port or an unreachable host is said as such; past this, with TLS, a failed
  // connection is the TLS handshake's refusal.
  const std::chrono::duration<double> waited = std::chrono::steady_clock::now() - connecting;
  if (told_unreachable(connected, *where, std::max(1.0, std::round(waited.count())),
                       "perfdm client: cannot connect to " + o.address, err))
    return 2;
  if (!connected) {
    err << "perfdm client: " << o.address << " did not answer the connection within "
        << o.timeout_seconds << " s" << std::endl;
    out.flush();
    std::_Exit(2);  // the connecting thread stays blocked inside CAF: leave without it
  }
  auto& handle = *connected;
  if (!handle) {
    if (handle.error() == caf::sec::unexpected_actor_messaging_interface)
      err << "perfdm client: refused: the actor published at " << o.address
          << " has another interface than perfdm's remote_dm_actor (another version?)\n";
    else if (handle.error() == caf::sec::connection_timeout)  // CAF gave up before `wait`
      err << "perfdm client: " << o.address
          << " did not answer the connection (the handshake timed out)\n";
    else if (handle.error() == caf::sec::disconnect_during_handshake)
      err << "perfdm client: refused: " << o.address
          << " closed the connection during the handshake (TLS on one side only, or a "
             "certificate the other side's --tls-ca did not sign)\n";
    else if (o.remote.tls())  // the port answered: the TLS handshake failed
      err << "perfdm client: refused: the TLS handshake with " << o.address
          << " failed (TLS on one side only, or a certificate the other side's --tls-ca did "
             "not sign): "
          << sys.render(handle.error()) << '\n';
    else
      err << "perfdm client: cannot connect to " << o.address << ": " << sys.render(handle.error())
          << '\n';
    return 2;
  }

  auto print = std::make_shared<line_printer>(out);
  auto lost = std::make_shared<std::atomic<bool>>(false);
  auto self_actor = spawn_remote_client(sys, caf::actor_cast<caf::actor>(*handle), print, lost);
  int rc = 0;
  bool any_error = false;
  std::uint64_t last_stream = no_stream;
  {
    caf::scoped_actor self{sys};
    for (auto xml : requests) {
      if (!substitute_stream(xml, last_stream)) {
        err << "perfdm client: $STREAM before any STREAM was opened: " << xml << '\n';
        rc = 2;
        break;
      }
      auto parsed = parse_request(xml);
      if (parsed.error) {
        print->line(print_error(parsed.target, parsed.error));
        any_error = true;
        continue;
      }
      self->request(self_actor, reply_wait, client_run_atom::value, parsed.request, parsed.target)
          .receive(
              [&](bool failed, std::uint64_t opened) {
                any_error = any_error || failed;
                if (opened != no_stream) last_stream = opened;
              },
              [&](caf::error& e) {
                if (*lost)
                  err << "perfdm client: the engine at " << o.address << " was lost\n";
                else if (e == caf::sec::request_timeout)
                  err << "perfdm client: no reply within " << o.timeout_seconds << " s\n";
                else
                  err << "perfdm client: " << sys.render(e) << '\n';
                rc = 2;
              });
      if (rc) break;
    }
    if (rc == 0 && o.watch) {
      while (!stop_requested() && !*lost) std::this_thread::sleep_for(std::chrono::milliseconds(50));
      if (*lost) {
        err << "perfdm client: the engine at " << o.address << " was lost\n";
        rc = 2;
      }
    }
  }
  // Ending the client actor ends its streams at the engine (rule T3, through the bridge).
  caf::anon_send_exit(self_actor, caf::exit_reason::user_shutdown);
  if (rc) return rc;
  return any_error ? 1 : 0;
}

}  // namespace perfdm
