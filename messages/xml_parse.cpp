// The XML command language of PROTOCOL.md -> the message structs of dm_messages.hpp.
//
// RapidXML builds the element tree (it throws rapidxml::parse_error on text that is not
// XML -> BAD_XML; a depth guard keeps its recursion off deep nesting); the code below only
// judges names and attribute values (messages/xml_parse_support.hpp).
#include "messages/xml_codec.hpp"

#include <cstdint>
#include <memory>
#include <rapidxml/rapidxml.hpp>
#include <utility>
#include <vector>

#include "messages/callgraph_messages.hpp"
#include "messages/dm_error.hpp"
#include "messages/dm_messages.hpp"
#include "messages/flame_messages.hpp"
#include "messages/process_command_messages.hpp"
#include "messages/process_messages.hpp"
#include "messages/native_messages.hpp"
#include "messages/search_messages.hpp"
#include "messages/topology_messages.hpp"
#include "messages/xml_evidence.hpp"
#include "messages/xml_parse_support.hpp"

namespace perfdm {

using namespace xml;

namespace {

// A SAMPLES request may carry at most this many samples (LIMIT beyond).
constexpr std::size_t max_samples = 1'000'000;

// ---------------------------------------------------------------------------------------
// One parser per DM command: (argument element or nullptr, command name) -> request.

using command_parser = caf::message (*)(const xml_node* arg, const std::string& command);

template <class Request>
caf::message no_argument(const xml_node* arg, const std::string& command) {
  if (arg != nullptr)
    bad_argument("command " + command + " takes no argument, but has " + tag(name_of(arg)));
  return caf::make_message(Request{});
}

caf::message parse_define(const xml_node* arg, const std::string& command) {
  if (arg != nullptr && iequals(name_of(arg), "RESOURCE")) {
    expect_leaf(arg);
    attributes a(arg, {"NAME"});
    auto name = a.text("NAME");
    if (name.empty() || name.front() != '/')
      bad_argument("attribute NAME of <RESOURCE> must be a resource name starting with '/', not " +
                   quoted(name));
    return caf::make_message(define_resource{std::string(name)});
  }
  if (arg == nullptr || !iequals(name_of(arg), "METRIC"))
    bad_argument("command " + command + " takes a <METRIC> or <RESOURCE> argument" +
                 (arg ? ", not " + tag(name_of(arg)) : std::string()));
  expect_leaf(arg);
  attributes a(arg, {"NAME", "STYLE", "UNITS"});
  define_metric r;
  r.name = a.text("NAME");
  if (r.name.empty()) bad_argument("attribute NAME of <METRIC> must not be empty");
  r.style = a.style_or_counter("STYLE");
  r.units = a.text_or("UNITS", "");
  return caf::make_message(std::move(r));
}

caf::message parse_close(const xml_node* arg, const std::string& command) {
  attributes a(require_leaf(arg, "STREAM", command), {"ID"});
  return caf::make_message(close_stream{a.id<stream_handle>("ID")});
}

caf::message parse_enable(const xml_node* arg, const std::string& command) {
  attributes a(require_leaf(arg, "ENABLE", command),
               {"STREAM", "METRIC", "FOCUS", "PHASE", "PERSISTENT_DATA", "PERSISTENT_COLLECTION",
                "PHASE_PERSISTENT_DATA"});
  enable_request r;
  r.stream = a.id<stream_handle>("STREAM");
  r.metric = a.text("METRIC");
  r.focus = a.focus("FOCUS");
  r.phase = a.phase_or_global("PHASE");
  r.flags = a.flags();
  return caf::make_message(std::move(r));
}

caf::message parse_disable(const xml_node* arg, const std::string& command) {
  attributes a(require_leaf(arg, "DISABLE", command), {"STREAM", "MI", "PHASE"});
  disable_request r;
  r.stream = a.id<stream_handle>("STREAM");
  r.mi = a.id<mi_handle>("MI");
  r.phase = a.phase_type_or_global("PHASE");
  return caf::make_message(r);
}

// SETFLAGS and CLEARFLAGS: only flags given as true are addressed; `PERSISTENT_DATA='false'`
// is accepted but addresses nothing, so a request that addresses nothing is an error.
caf::message parse_flags(const xml_node* arg, const std::string& command) {
  attributes a(require_leaf(arg, "FLAGS", command),
               {"MI", "PERSISTENT_DATA", "PERSISTENT_COLLECTION", "PHASE_PERSISTENT_DATA"});
  flags_request r;
  r.mi = a.id<mi_handle>("MI");
  r.named = a.flags();
  r.set = command == "SETFLAGS";
  if (r.named == persistence{})
    bad_argument("command " + command +
                 " must name at least one flag as true (PERSISTENT_DATA, PERSISTENT_COLLECTION or "
                 "PHASE_PERSISTENT_DATA)");
  return caf::make_message(r);
}

caf::message parse_phase(const xml_node* arg, const std::string& command) {
  if (arg == nullptr) return caf::make_message(start_phase{});
  attributes a(require_leaf(arg, "PHASE", command), {"NAME"});
  return caf::make_message(start_phase{std::string(a.text_or("NAME", ""))});
}

caf::message parse_samples(const xml_node* arg, const std::string& command) {
  auto* node = require(arg, "SAMPLES", command);
  attributes none(node, {});
  samples_request r;
  for (auto* c = node->first_node(); c != nullptr; c = c->next_sibling()) {
    refuse_text(c, node);
    if (c->type() != rapidxml::node_element) continue;
    if (!iequals(name_of(c), "S"))
      bad_argument("<SAMPLES> holds only <S> elements, not " + tag(name_of(c)));
    if (r.samples.size() == max_samples)
      fail(dm_error::limit,
           "a SAMPLES request may carry at most " + std::to_string(max_samples) + " samples");
    expect_leaf(c);
    attributes a(c, {"MI", "START", "END", "VALUE"},
                 "sample " + std::to_string(r.samples.size() + 1) + " <S>");
    sample s;
    s.mi = a.id<mi_handle>("MI");
    s.start = a.number("START");
    s.end = a.number("END");
    s.value = a.number("VALUE");
    if (s.end < s.start)
      bad_argument(a.where() + " ends (END='" + format_number(s.end) +
                   "') before it starts (START='" + format_number(s.start) + "')");
    r.samples.push_back(s);
  }
  return caf::make_message(std::move(r));
}

caf::message parse_data(const xml_node* arg, const std::string& command) {
  attributes a(require_leaf(arg, "DATA", command), {"MI", "PHASE"});
  data_request r;
  r.mi = a.id<mi_handle>("MI");
  r.phase = a.phase_or_global("PHASE");
  return caf::make_message(r);
}

caf::message parse_log(const xml_node* arg, const std::string& command) {
  if (arg == nullptr) return caf::make_message(write_log{});
  attributes a(require_leaf(arg, "LOG", command), {"FILE"});
  return caf::make_message(write_log{std::string(a.text_or("FILE", ""))});
}

// DyPer names a process `<pid>@<host>`: the pid is what counts here (the engine observes
// processes of its own host).
std::optional<std::uint64_t> parse_pid(std::string_view s) {
  if (auto at = s.find('@'); at != std::string_view::npos && at + 1 < s.size())
    s = s.substr(0, at);
  return parse_id(s);
}

// A process id: a positive decimal integer that fits a pid_t (or DyPer's `<pid>@<host>`).
std::int32_t pid_of(const attributes& a) {
  auto s = a.text("PID");
  auto x = parse_pid(s);
  if (!x || *x == 0 || *x > 0x7fffffff)
    bad_argument("<PROCESS> PID must be a process id (a positive integer), not '" + std::string(s) + "'");
  return static_cast<std::int32_t>(*x);
}

// An optional count within [low, high], a power of two when asked; 0 when absent.
std::uint32_t count_of(const attributes& a, const char* name, std::uint64_t low,
                       std::uint64_t high, bool power_of_two) {
  auto v = a.find(name);
  if (!v) return 0;
  auto x = parse_id(*v);
  if (!x || *x < low || *x > high || (power_of_two && (*x & (*x - 1)) != 0))
    bad_argument("<PROCESS> " + std::string(name) + " must be " +
                 (power_of_two ? "a power of two " : "an integer ") + "from " +
                 std::to_string(low) + " to " + std::to_string(high) + ", not '" +
                 std::string(*v) + "'");
  return static_cast<std::uint32_t>(*x);
}


caf::message parse_search(const xml_node* arg, const std::string& command) {
  std::initializer_list<const char*> known{
      "PHASE", "ACTION", "FOLLOW", "CPU_THRESHOLD", "SYNC_THRESHOLD", "IO_THRESHOLD", "SMALL_IO_BYTES",
      "HYSTERESIS", "SUFFICIENT_TIME", "MAX_PENDING", "MAX_ACTIVE", "COST_BUDGET", "CONFIDENCE"};
  attributes a(require_leaf(arg, "SEARCH", command), known);
  search_request r;
  r.phase = a.phase_type_or_global("PHASE");
  auto action = a.text_or("ACTION", "START");
  if (iequals(action, "START")) r.action = search_action::start;
  else if (iequals(action, "PAUSE")) r.action = search_action::pause;
  else if (iequals(action, "RESUME")) r.action = search_action::resume;
  else if (iequals(action, "STOP")) r.action = search_action::stop;
  else
    bad_argument("attribute ACTION of <SEARCH> must be START, PAUSE, RESUME or STOP, not " +
                 quoted(action));
  for (auto& t : search_tunable_attributes) {
    if (!a.find(t.name)) continue;
    double v = a.number(t.name);
    bool whole = std::string_view(t.name).substr(0, 4) == "MAX_";
    if ((t.low_open ? v <= t.low : v < t.low) || v > t.high || (whole && v != std::floor(v)))
      bad_argument("attribute " + std::string(t.name) + " of <SEARCH> must be " +
                   (whole ? "a whole number " : "a number ") + (t.low_open ? "above " : "from ") +
                   format_number(t.low) + " to " + format_number(t.high) + ", not " +
                   format_number(v));
    r.tunables[t.name] = v;
  }
  r.follow = a.boolean_or("FOLLOW", false);
  if (r.follow && (r.phase != phase_type::current || r.action != search_action::start))
    bad_argument("attribute FOLLOW of <SEARCH> belongs to ACTION='START' PHASE='CURRENT'");
  return caf::make_message(std::move(r));
}

caf::message parse_shg(const xml_node* arg, const std::string& command) {
  shg_request r;
  if (arg == nullptr) return caf::make_message(r);
  attributes a(require_leaf(arg, "SHG", command), {"SEARCH"});
  if (a.find("SEARCH")) {
    auto s = a.text("SEARCH");
    auto id = parse_id(s);
    if (!id) bad_argument("attribute SEARCH of <SHG> must be a search id, not " + quoted(s));
    r.has_search = true;
    r.search = *id;
  }
  return caf::make_message(r);
}

caf::message parse_attach(const xml_node* arg, const std::string& command) {
  attributes a(require_leaf(arg, "PROCESS", command),
               {"PID", "SCHEMA", "FORCE", "LANES", "CAPACITY"});
  attach_request r{pid_of(a), std::string(a.text_or("SCHEMA", "")), a.boolean_or("FORCE", false)};
  r.lanes = count_of(a, "LANES", 1, 1024, false);
  r.capacity = count_of(a, "CAPACITY", 64, 16777216, true);
  return caf::make_message(r);
}

caf::message parse_detach(const xml_node* arg, const std::string& command) {
  attributes a(require_leaf(arg, "PROCESS", command), {"PID"});
  return caf::make_message(detach_request{pid_of(a)});
}

// WATCH, UNWATCH, PROFILE, STACKS: `<PROCESS PID='n'/>`.
template <class Request>
caf::message parse_process_command(const xml_node* arg, const std::string& command) {
  attributes a(require_leaf(arg, "PROCESS", command), {"PID"});
  return caf::make_message(Request{pid_of(a)});
}

// FINDINGS: no argument (every search) or `<FINDINGS SEARCH='id'/>`.
caf::message parse_findings(const xml_node* arg, const std::string& command) {
  findings_request r;
  if (arg == nullptr) return caf::make_message(r);
  attributes a(require_leaf(arg, "FINDINGS", command), {"SEARCH"});
  if (a.find("SEARCH")) {
    auto s = a.text("SEARCH");
    auto id = parse_id(s);
    if (!id) bad_argument("attribute SEARCH of <FINDINGS> must be a search id, not " + quoted(s));
    r.has_search = true;
    r.search = *id;
  }
  return caf::make_message(r);
}

// CALLGRAPH: no argument (every watched process) or `<PROCESS PID='n'/>`.
caf::message parse_callgraph(const xml_node* arg, const std::string& command) {
  if (arg == nullptr) return caf::make_message(callgraph_request{});
  attributes a(require_leaf(arg, "PROCESS", command), {"PID"});
  return caf::make_message(callgraph_request{pid_of(a)});
}

// The DM commands. Names are compared after upper-casing the COMMAND attribute.
struct command_entry {
  const char* name;
  command_parser parse;
};
const command_entry dm_commands[] = {
    {"DEFINE", parse_define},
    {"METRICS", no_argument<list_metrics>},
    {"RESOURCES", no_argument<list_resources>},
    {"PHASES", no_argument<list_phases>},
    {"STATUS", no_argument<status_query>},
    {"SAMPLERATE", no_argument<samplerate_query>},
    {"STREAM", no_argument<open_stream>},  // the caller fills in the sink
    {"CLOSE", parse_close},
    {"ENABLE", parse_enable},
    {"DISABLE", parse_disable},
    {"SETFLAGS", parse_flags},
    {"CLEARFLAGS", parse_flags},
    {"PHASE", parse_phase},
    {"SAMPLES", parse_samples},
    {"DATA", parse_data},
    {"LOG", parse_log},
    {"ATTACH", parse_attach},
    {"DETACH", parse_detach},
    {"PROCESSES", no_argument<list_processes>},
    {"FRAMES", no_argument<frames_stats_query>},
    {"PING", no_argument<ping>},
    {"WATCH", parse_process_command<watch_request>},
    {"UNWATCH", parse_process_command<unwatch_request>},
    {"PROFILE", parse_process_command<profile_request>},
    {"STACKS", parse_process_command<stacks_request>},
    {"SEARCH", parse_search},
    {"SHG", parse_shg},
    {"CALLGRAPH", parse_callgraph},
    {"FINDINGS", parse_findings},
    {"EVIDENCE", parse_evidence},
    {"TOPOLOGY", no_argument<topology_query>},
};

// A request for a process: `<DYPER PID='pid' COMMAND>` or `<DYPATCH PID='pid' COMMAND>`.
// The command reads its own argument (dyper/process_commands.cpp), so the envelope's
// content is kept as XML text; whether the pid is a known process is the registry's call.
caf::message parse_process_command(const xml_node* root, const parsed_request& out,
                                   bool dypatch) {
  attributes envelope(root, {"PID", "COMMAND"});
  auto id = parse_pid(out.target);
  if (!id || *id == 0 || *id > static_cast<std::uint64_t>(INT32_MAX))
    fail(dm_error::unknown_target, "no process " + quoted(out.target) + " is known");
  process_command c;
  c.pid = static_cast<std::int32_t>(*id);
  c.dypatch = dypatch;
  c.command = out.command;
  c.argument = std::string(trim(inner_xml(root)));
  return caf::make_message(std::move(c));
}

// The envelope `<DYPER PID COMMAND>` around one argument element.
void parse_envelope(const xml_node* root, parsed_request& out) {
  // PID and COMMAND are taken before anything is judged, so that even a refused request's
  // error reply is addressed to the target it was sent to.
  auto* pid = root->first_attribute("PID", 3, false);
  auto* cmd = root->first_attribute("COMMAND", 7, false);
  if (pid != nullptr) out.target = value_of(pid);
  if (cmd != nullptr) out.command = upper_case(value_of(cmd));
  bool dypatch = iequals(name_of(root), "DYPATCH");
  if (!iequals(name_of(root), "DYPER") && !dypatch)
    fail(dm_error::unknown_command,
         "requests are <DYPER PID='..' COMMAND='..'> or <DYPATCH ..> elements; " +
             tag(name_of(root)) + " requests are not supported");
  if (!dypatch && cmd != nullptr && out.command == "WHO") {
    // WHO is for any target, and DyPer sends it without PID (`<DYPER COMMAND='WHO'/>`).
    attributes envelope(root, {"PID", "COMMAND"});
    out.request = no_argument<who_request>(argument_of(root, out.command), out.command);
    return;
  }
  if (pid == nullptr) bad_argument("the request has no PID attribute naming its target");
  if (cmd == nullptr) bad_argument("the request has no COMMAND attribute");
  if (dypatch || !iequals(out.target, "DM")) {
    out.request = parse_process_command(root, out, dypatch);
    return;
  }
  attributes envelope(root, {"PID", "COMMAND"});  // refuses unknown or repeated attributes
  for (auto& c : dm_commands)
    if (out.command == c.name) {
      out.request = c.parse(argument_of(root, out.command), out.command);
      return;
    }
  fail(dm_error::unknown_command, "unknown command " + quoted(out.command) + " for target DM");
}

// FLAMEGRAPH's argument: `<FLAMEGRAPH VIEW THREAD PHASE FROM TO/>`, every attribute optional.
caf::message parse_flamegraph(const xml_node* arg, std::int32_t pid) {
  flamegraph_request r;
  r.pid = pid;
  if (arg == nullptr) return caf::make_message(r);
  attributes a(require_leaf(arg, "FLAMEGRAPH", "FLAMEGRAPH"), {"VIEW", "THREAD", "PHASE", "FROM", "TO"});
  r.view = std::string(a.text_or("VIEW", "cpu"));
  bool known = false;
  for (auto* v : {"cpu", "offcpu", "lock", "io", "sleep", "other", "all"}) known |= r.view == v;
  if (!known)
    bad_argument("attribute VIEW of <FLAMEGRAPH> must be cpu, offcpu, lock, io, sleep, other or "
                 "all, not " + quoted(r.view));
  if (auto t = a.find("THREAD")) {
    auto x = parse_id(*t);
    if (!x || *x > 0x7fffffff)
      bad_argument("attribute THREAD of <FLAMEGRAPH> must be a thread id, not " + quoted(*t));
    r.tid = static_cast<std::int32_t>(*x);
  }
  if (auto p = a.find("PHASE"); p && !iequals(*p, "CURRENT")) {
    auto x = parse_id(*p);
    if (!x) bad_argument("attribute PHASE of <FLAMEGRAPH> must be CURRENT or a phase id, not " + quoted(*p));
    r.has_phase = true;
    r.phase = *x;
  }
  if (a.find("FROM")) r.has_from = true, r.from = a.number("FROM");
  if (a.find("TO")) r.has_to = true, r.to = a.number("TO");
  if (r.has_from && r.has_to && r.to < r.from)
    bad_argument("<FLAMEGRAPH> ends (TO) before it starts (FROM)");
  return caf::make_message(r);
}

// TIMELINE's argument: `<TIMELINE FROM TO/>`, both optional.
caf::message parse_timeline(const xml_node* arg, std::int32_t pid) {
  timeline_request r;
  r.pid = pid;
  if (arg == nullptr) return caf::make_message(r);
  attributes a(require_leaf(arg, "TIMELINE", "TIMELINE"), {"FROM", "TO"});
  if (a.find("FROM")) r.has_from = true, r.from = a.number("FROM");
  if (a.find("TO")) r.has_to = true, r.to = a.number("TO");
  if (r.has_from && r.has_to && r.to < r.from)
    bad_argument("<TIMELINE> ends (TO) before it starts (FROM)");
  return caf::make_message(r);
}

}  // namespace

parsed_request parse_flame_argument(std::int32_t pid, const std::string& command,
                                    std::string_view argument) {
  parsed_request out;
  out.target = std::to_string(pid);
  out.command = command;
  if (argument.size() > max_request_bytes || argument.find('\0') != std::string_view::npos ||
      nests_too_deep(argument)) {
    out.error = make_dm_error(dm_error::bad_argument, "the argument of " + command + " is not readable");
    return out;
  }
  std::vector<char> buffer(argument.begin(), argument.end());
  buffer.push_back('\0');
  auto doc = std::make_unique<rapidxml::xml_document<char>>();
  try {
    doc->parse<rapidxml::parse_validate_closing_tags>(buffer.data());
    const xml_node* arg = nullptr;
    for (auto* n = doc->first_node(); n != nullptr; n = n->next_sibling()) {
      if (n->type() != rapidxml::node_element) continue;
      if (arg != nullptr) bad_argument(command + " takes one argument element");
      arg = n;
    }
    out.request = command == "TIMELINE" ? parse_timeline(arg, pid) : parse_flamegraph(arg, pid);
  } catch (const rapidxml::parse_error& e) {
    out.error = make_dm_error(dm_error::bad_xml, std::string("malformed argument: ") + e.what());
  } catch (const parse_failure& e) {
    out.error = e.error;
  }
  if (out.error) out.request = caf::message{};
  return out;
}

parsed_request parse_request(std::string_view text) {
  parsed_request out;
  if (text.size() > max_request_bytes) {
    out.error = make_dm_error(dm_error::limit,
                              "a request may hold at most " + std::to_string(max_request_bytes) +
                                  " bytes, this one holds " + std::to_string(text.size()));
    return out;
  }
  // RapidXML parses in place and stops at the first NUL, so it gets a NUL-terminated copy,
  // and a NUL inside the text is refused rather than silently cutting the request short.
  if (text.find('\0') != std::string_view::npos) {
    out.error = make_dm_error(dm_error::bad_xml, "the request contains a NUL character");
    return out;
  }
  if (auto bad = first_invalid_utf8(text)) {
    out.error = make_dm_error(dm_error::bad_xml, "the request is not valid UTF-8 (byte " +
                                                     std::to_string(*bad) + ")");
    return out;
  }
  if (nests_too_deep(text)) {
    out.error = make_dm_error(
        dm_error::limit, "elements may nest at most " + std::to_string(max_depth) + " levels deep");
    return out;
  }
  std::vector<char> buffer(text.begin(), text.end());
  buffer.push_back('\0');
  // The document holds a 64 KiB memory pool: keep it off the (actor thread's) stack.
  auto doc = std::make_unique<rapidxml::xml_document<char>>();
  try {
    doc->parse<rapidxml::parse_validate_closing_tags>(buffer.data());
    const xml_node* root = nullptr;
    for (auto* n = doc->first_node(); n != nullptr; n = n->next_sibling()) {
      if (n->type() != rapidxml::node_element) continue;
      if (root != nullptr)
        fail(dm_error::bad_xml, "a request is exactly one element, but this one has " +
                                    tag(name_of(root)) + " followed by " + tag(name_of(n)));
      root = n;
    }
    if (root == nullptr) fail(dm_error::bad_xml, "the request holds no element");
    refuse_nul(root);
    parse_envelope(root, out);
  } catch (const rapidxml::parse_error& e) {
    out.error = make_dm_error(
        dm_error::bad_xml, std::string("malformed XML at byte ") +
                               std::to_string(e.where<char>() - buffer.data()) + ": " + e.what());
  } catch (const parse_failure& e) {
    out.error = e.error;
  }
  if (out.error) out.request = caf::message{};
  return out;
}

}  // namespace perfdm
