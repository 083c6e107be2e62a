#include "cli/session.hpp"

#include <istream>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/scheduler/test_coordinator.hpp>
#include <caf/others.hpp>
#include <caf/scoped_actor.hpp>

#include "messages/dm_error.hpp"
#include "messages/dm_messages.hpp"
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
  session_line reply{session_line::reply, {}, {}};
  auto handle = self->request(impl_->dm, caf::infinite, parsed.request);
  impl_->run_scheduler();
  handle.receive(
      [&](caf::error& e) {
        reply = {session_line::error, print_error(parsed.target, e), caf::make_message(e)};
      },
      caf::others >> [&](caf::message_view& x) -> caf::result<caf::message> {
        reply.message = x.copy_content_to_message();
        reply.xml = print_reply(parsed.target, reply.message);
        return caf::message{};
      });
  // The events the request caused reached this actor before its reply did.
  bool more = true;
  while (more) {
    self->receive(
        caf::others >> [&](caf::message_view& x) -> caf::result<caf::message> {
          auto m = x.copy_content_to_message();
          emit({session_line::event, print_event(m), m});
          return caf::message{};
        },
        caf::after(std::chrono::seconds(0)) >> [&] { more = false; });
  }
  emit(reply);
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
