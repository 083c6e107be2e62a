#include "cli/xml_session.hpp"

#include <algorithm>
#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/io/middleman.hpp>
#include <caf/others.hpp>
#include <caf/scheduler/test_coordinator.hpp>
#include <caf/scoped_actor.hpp>
#include <cstdlib>
#include <filesystem>
#include <istream>
#include <thread>

#include "cli/dm_log_writer.hpp"
#include "messages/dm_error.hpp"
#include "messages/dm_messages.hpp"
#include "messages/process_command_messages.hpp"
#include "messages/record_messages.hpp"
#include "messages/type_registry.hpp"
#include "messages/xml_codec.hpp"

namespace perfdm {

void configure_engine_system(caf::actor_system_config& cfg, bool deterministic) {
  register_message_types(cfg);
  cfg.set("logger.console", caf::atom("none"));
  if (!deterministic) cfg.load<caf::io::middleman>();  // remote actors (--publish, daemons)
  // A request crosses threads (gateway I/O thread, connection actor, data manager, back),
  // and waking an idle CPU costs tens of microseconds per crossing on a virtual machine. So a
  // worker out of work polls its queue first, then sleeps at once: a 50 us nap would delay a
  // request by a nap, while a sleeping worker is woken by any enqueue from outside. Asleep,
  // it looks for work to steal every 50 ms, the only thing an idle engine does (about 0.1 %
  // of a core). PERFDM_SCHEDULER=sharing spends nothing after a burst, at half the one-client
  // request rate (bench/RESULTS.md, gateway).
  cfg.set("scheduler.policy", caf::atom("stealing"));
  cfg.set("work-stealing.aggressive-poll-attempts", std::size_t{10000});
  cfg.set("work-stealing.moderate-poll-attempts", std::size_t{0});
  cfg.set("work-stealing.relaxed-sleep-duration", caf::timespan{std::chrono::milliseconds(50)});
  // One worker per core, at least 2 (CAF's default is at least 4): a polling worker beyond
  // the cores only takes a core from the thread it would serve. The engine's blocking work
  // (frame ingest, stack sampling, log writing) runs on detached actors of its own.
  cfg.set("scheduler.max-threads", std::max<std::size_t>(2, std::thread::hardware_concurrency()));
  if (!deterministic)
    if (auto* p = std::getenv("PERFDM_SCHEDULER"))
      cfg.set("scheduler.policy", caf::atom_from_string(p));
  // Replay: CAF's test coordinator runs every actor on this thread, deterministically.
  if (deterministic) cfg.set("scheduler.policy", caf::atom("testing"));
}

namespace {

caf::actor_system_config& configure(caf::actor_system_config& cfg, const session_options& o) {
  configure_engine_system(cfg, o.deterministic);
  if (o.configure && !o.deterministic) o.configure(cfg);  // e.g. engine --publish
  return cfg;
}

// The engine's options, with the recorder of --record when the session records.
engine_options with_recorder(const session_options& o) {
  auto e = o.engine;
  if (o.record && !e.recorder) e.recorder = std::make_shared<request_recorder>(*o.record);
  return e;
}

}  // namespace

struct session::impl {
  explicit impl(const session_options& o)
      : options(o),
        system(configure(config, o)),
        dm(spawn_data_manager(system, with_recorder(o))),
        self(system),
        log_reader(system) {
    self->send(dm, record_origin{o.deterministic ? "replay" : "stdin", true});
    // DyPer's START/END and periodic REPORT messages come here as well as to TCP clients.
    self->send(dm, process_announcements{caf::actor_cast<caf::actor>(self)});
    // LOG reads the data manager through ordinary requests: not the front end's.
    log_reader->send(dm, record_origin{"log writer", false});
  }

  ~impl() {
    self->send_exit(dm, caf::exit_reason::user_shutdown);
    run_scheduler();
  }

  void run_scheduler() {
    if (options.deterministic)
      dynamic_cast<caf::scheduler::test_coordinator&>(system.scheduler()).run();
  }

  session_options options;
  std::int64_t start_ns = epoch_now_ns();
  caf::actor_system_config config;
  caf::actor_system system;
  caf::actor dm;
  caf::scoped_actor self;
  caf::scoped_actor log_reader;  // reads the data manager for LOG
};

session::session(const session_options& options) : impl_(std::make_unique<impl>(options)) {}

session::~session() = default;

void session::run_line(const std::string& raw,
                       const std::function<void(const session_line&)>& emit) {
  auto line = std::string(trim(raw));
  if (line.empty() || line[0] == '#') return;
  auto parsed = parse_request(line);
  auto& self = impl_->self;
  // The data manager records what it processes (--record); a request refused here is
  // recorded as received, in its place, so replaying the recording gives the same error.
  if (parsed.error) {
    self->send(impl_->dm, record_unsent{line, true});
    emit({session_line::error, print_error(parsed.target, parsed.error),
          caf::make_message(parsed.error)});
    return;
  }
  if (parsed.request.match_elements<open_stream>())
    parsed.request = caf::make_message(open_stream{caf::actor_cast<caf::actor>(self)});
  if (parsed.request.match_elements<write_log>()) {
    // LOG is the session's: it reads the data manager through ordinary requests.
    self->send(impl_->dm, record_unsent{print_request(parsed.target, parsed.request), false});
    auto file = parsed.request.get_as<write_log>(0).file;
    if (file.empty()) file = impl_->options.default_log;
    try {
      auto bytes = write_log_file(file);
      auto reply = caf::make_message(log_written{file, bytes});
      emit({session_line::reply, print_reply(parsed.target, reply), reply});
    } catch (const std::exception& e) {
      auto err =
          make_dm_error(dm_error::internal, std::string("cannot write the log: ") + e.what());
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

namespace {

caf::message ask_as(caf::scoped_actor& self, session& s, const caf::message& request,
                    const std::function<void()>& run_scheduler) {
  caf::message reply;
  auto handle = self->request(s.data_manager(), caf::infinite, request);
  run_scheduler();
  handle.receive([&](caf::error& e) { reply = caf::make_message(e); },
                 caf::others >> [&](caf::message_view& x) -> caf::result<caf::message> {
                   reply = x.copy_content_to_message();
                   return caf::message{};
                 });
  return reply;
}

}  // namespace

caf::message session::ask(const caf::message& request,
                          const std::function<void(const session_line&)>& emit) {
  auto reply = ask_as(impl_->self, *this, request, [this] { impl_->run_scheduler(); });
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
          if (!emit) return caf::message{};
          if (m.match_elements<process_announcement>())
            emit({session_line::event, m.get_as<process_announcement>(0).xml, m});
          else
            emit({session_line::event, print_event(m), m});
          return caf::message{};
        },
        caf::after(std::chrono::seconds(0)) >> [&] { more = false; });
  }
}

std::uint64_t session::write_log_file(const std::string& path) {
  return write_dm_log(
      [this](const caf::message& m) {
        return ask_as(impl_->log_reader, *this, m, [this] { impl_->run_scheduler(); });
      },
      log_job(), path);
}

dm_log_job session::log_job() const {
  auto& o = impl_->options;
  dm_log_job job;
  job.command_line = o.command_line;
  job.start_ns = impl_->start_ns;
  job.clock = o.deterministic ? "virtual (replay)" : o.engine.live_clock ? "live" : "virtual";
  job.log_memory_bytes = o.log_memory_bytes;
  job.compression = o.log_compression_type;
  return job;
}

caf::actor_system& session::system() {
  return impl_->system;
}

caf::actor session::data_manager() const {
  return impl_->dm;
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
