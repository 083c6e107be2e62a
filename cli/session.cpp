#include "cli/session.hpp"

#include <filesystem>
#include <istream>

#include <unistd.h>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/scheduler/test_coordinator.hpp>
#include <caf/others.hpp>
#include <caf/scoped_actor.hpp>

#include "cli/dm_log_module.hpp"
#include "cli/frames_log_module.hpp"
#include "log/log_core.hpp"
#include "messages/dm_error.hpp"
#include "messages/dm_messages.hpp"
#include "messages/process_messages.hpp"
#include "messages/type_registry.hpp"
#include "messages/xml_codec.hpp"

namespace perfdm {

namespace {

caf::actor_system_config& configure(caf::actor_system_config& cfg, bool deterministic) {
  register_message_types(cfg);
  cfg.set("logger.console", caf::atom("none"));
  if (deterministic) cfg.set("scheduler.policy", caf::atom("testing"));
  return cfg;
}

std::int64_t epoch_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string trim(const std::string& s) {
  auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return {};
  auto e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

}  // namespace

struct session::impl {
  explicit impl(const session_options& o)
      : options(o), system(configure(config, o.deterministic)),
        dm(spawn_data_manager(system, o.engine)), self(system) {}

  ~impl() {
    self->send_exit(dm, caf::exit_reason::user_shutdown);
    run_scheduler();
  }

  void run_scheduler() {
    if (options.deterministic)
      dynamic_cast<caf::scheduler::test_coordinator&>(system.scheduler()).run();
  }

  session_options options;
  std::int64_t start_ns = epoch_ns();
  caf::actor_system_config config;
  caf::actor_system system;
  caf::actor dm;
  caf::scoped_actor self;
};

session::session(const session_options& options) : impl_(std::make_unique<impl>(options)) {}

session::~session() = default;

void session::run_line(const std::string& raw,
                       const std::function<void(const session_line&)>& emit) {
  auto line = trim(raw);
  if (line.empty() || line[0] == '#') return;
  auto parsed = parse_request(line);
  auto& self = impl_->self;
  if (impl_->options.record) {
    // A request that parsed is recorded in its canonical form; one that did not is
    // recorded as received, so replaying the recording gives the same error.
    *impl_->options.record
        << (parsed.error ? line : print_request(parsed.target, parsed.request)) << '\n';
    impl_->options.record->flush();
  }
  if (parsed.error) {
    emit({session_line::error, print_error(parsed.target, parsed.error),
          caf::make_message(parsed.error)});
    return;
  }
  if (parsed.request.match_elements<open_stream>())
    parsed.request = caf::make_message(open_stream{caf::actor_cast<caf::actor>(self)});
  if (parsed.request.match_elements<write_log>()) {
    // LOG is the session's: it reads the data manager through ordinary requests.
    auto file = parsed.request.get_as<write_log>(0).file;
    if (file.empty()) file = impl_->options.default_log;
    try {
      auto bytes = write_log_file(file);
      auto reply = caf::make_message(log_written{file, bytes});
      emit({session_line::reply, print_reply(parsed.target, reply), reply});
    } catch (const std::exception& e) {
      auto err = make_dm_error(dm_error::internal, std::string("cannot write the log: ") + e.what());
      emit({session_line::error, print_error(parsed.target, err), caf::make_message(err)});
    }
    return;
  }
  auto reply = ask(parsed.request, emit);
  if (reply.match_elements<caf::error>())
    emit({session_line::error, print_error(parsed.target, reply.get_as<caf::error>(0)), reply});
  else
    emit({session_line::reply, print_reply(parsed.target, reply), reply});
}

caf::message session::ask(const caf::message& request,
                          const std::function<void(const session_line&)>& emit) {
  auto& self = impl_->self;
  caf::message reply;
  auto handle = self->request(impl_->dm, caf::infinite, request);
  impl_->run_scheduler();
  handle.receive([&](caf::error& e) { reply = caf::make_message(e); },
                 caf::others >> [&](caf::message_view& x) -> caf::result<caf::message> {
                   reply = x.copy_content_to_message();
                   return caf::message{};
                 });
  // The events the request caused reached this actor before its reply did.
  drain_events(emit);
  return reply;
}

void session::drain_events(const std::function<void(const session_line&)>& emit) {
  bool more = true;
  while (more) {
    impl_->self->receive(
        caf::others >> [&](caf::message_view& x) -> caf::result<caf::message> {
          auto m = x.copy_content_to_message();
          if (emit) emit({session_line::event, print_event(m), m});
          return caf::message{};
        },
        caf::after(std::chrono::seconds(0)) >> [&] { more = false; });
  }
}

namespace {

template <class T>
T reply_as(const caf::message& m) {
  if (!m.match_elements<T>())
    throw log_error("the data manager did not answer as expected: " + caf::to_string(m));
  return m.get_as<T>(0);
}

std::string host_name() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "unknown";
  return buf;
}

}  // namespace

std::uint64_t session::write_log_file(const std::string& path) {
  dm_snapshot snap;
  snap.metrics = reply_as<metric_list>(ask(caf::make_message(list_metrics{}))).metrics;
  snap.resources = reply_as<resource_list>(ask(caf::make_message(list_resources{}))).resources;
  snap.phases = reply_as<phase_list>(ask(caf::make_message(list_phases{}))).phases;
  snap.status = reply_as<status_info>(ask(caf::make_message(status_query{})));
  auto read = [&](mi_handle mi, phase_ref which, std::string name) {
    auto data = reply_as<histogram_data>(ask(caf::make_message(data_request{mi, which})));
    snap.histograms.push_back({std::move(name), std::move(data)});
  };
  for (auto& mi : snap.status.mis) {
    if (mi.has_global) read(mi.id, phase_ref{phase_type::global, false, {}}, "GLOBAL");
    if (mi.has_current) read(mi.id, phase_ref{phase_type::current, false, {}}, "CURRENT");
    for (auto p : mi.archived)
      read(mi.id, phase_ref{phase_type::current, true, p}, "phase " + to_string(p));
  }
  log_core_options o;
  o.module_memory_bytes = impl_->options.log_memory_bytes;
  o.compression = impl_->options.log_compression_type;
  log_core core(o);
  auto& job = core.job();
  job.command_line = impl_->options.command_line;
  job.host = host_name();
  job.start_ns = impl_->start_ns;
  job.end_ns = epoch_ns();
  job.metadata = {{"perfdm.version", "0.1.0"},
                  {"clock", impl_->options.deterministic ? "virtual (replay)"
                            : impl_->options.engine.live_clock ? "live" : "virtual"},
                  {"now", format_number(snap.status.now)}};
  auto processes = reply_as<process_list>(ask(caf::make_message(list_processes{})));
  for (auto& p : processes.processes) job.pids.push_back(static_cast<std::uint64_t>(p.pid));
  auto frames = reply_as<frames_stats>(ask(caf::make_message(frames_stats_query{})));
  // The frames module asks first: it is small, and the DM module takes what is left.
  add_frames_module(core, frames, core.memory_left() / 16);
  add_dm_module(core, snap, core.memory_left());
  core.write(path);
  return std::filesystem::file_size(path);
}

std::size_t replay(std::istream& in, std::ostream& out, const session_options& options) {
  session s(options);
  std::size_t errors = 0;
  std::string line;
  while (std::getline(in, line))
    s.run_line(line, [&](const session_line& l) {
      if (l.kind == session_line::error) ++errors;
      out << l.xml << '\n';
    });
  return errors;
}

}  // namespace perfdm
