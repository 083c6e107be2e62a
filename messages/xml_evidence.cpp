#include "messages/xml_evidence.hpp"

#include <cmath>

#include "messages/xml_element.hpp"

namespace perfdm::xml {

namespace {

std::uint64_t whole(const attributes& a, const char* name) {
  auto s = a.text(name);
  if (auto x = parse_id(s)) return *x;
  bad_argument("attribute " + std::string(name) + " of " + a.where() +
               " must be a non-negative integer, not " + quoted(s));
}

std::uint32_t small(const attributes& a, const char* name) {
  auto x = whole(a, name);
  if (x > 0xffffffffu) bad_argument("attribute " + std::string(name) + " of " + a.where() + " is too large");
  return static_cast<std::uint32_t>(x);
}

evidence_counts parse_counts(const xml_node* p) {
  expect_leaf(p);
  attributes a(
      p, {"PID",        "HOST",        "N",           "RUNS",      "RUNS_MOST",   "SYNCS",
          "SYNCS_MOST", "IOS",         "IOS_MOST",    "OPS",       "BYTES",       "FIRST",
          "LAST",       "RUNS_SHARE",  "SYNCS_SHARE", "IOS_SHARE", "RUNS_SAVING", "SYNCS_SAVING",
          "IOS_SAVING", "RUNS_BLAMED", "IOS_BLAMED",  "IDLE"});
  evidence_counts c;
  c.host = std::string(a.text_or("HOST", ""));
  c.pid = static_cast<std::int32_t>(small(a, "PID"));
  c.ticks = whole(a, "N");
  c.runs = whole(a, "RUNS");
  c.runs_most = small(a, "RUNS_MOST");
  c.syncs = whole(a, "SYNCS");
  c.syncs_most = small(a, "SYNCS_MOST");
  c.ios = whole(a, "IOS");
  c.ios_most = small(a, "IOS_MOST");
  c.io_ops = a.number("OPS");
  c.io_bytes = a.number("BYTES");
  c.first = a.number("FIRST");
  c.last = a.number("LAST");
  // Absent: not given (the shares), none (blame, idle threads).
  auto optional = [&](const char* name, double& x) {
    if (a.find(name)) x = a.number(name);
  };
  optional("RUNS_SHARE", c.runs_share);
  optional("SYNCS_SHARE", c.syncs_share);
  optional("IOS_SHARE", c.ios_share);
  optional("RUNS_SAVING", c.runs_saving);
  optional("SYNCS_SAVING", c.syncs_saving);
  optional("IOS_SAVING", c.ios_saving);
  optional("RUNS_BLAMED", c.runs_blamed);
  optional("IOS_BLAMED", c.ios_blamed);
  optional("IDLE", c.idle);
  return c;
}

}  // namespace

caf::message parse_evidence(const xml_node* arg, const std::string& command) {
  auto* node = require(arg, "EVIDENCE", command);
  attributes a(node, {"SEARCH", "TIME", "EVICTED"});
  evidence_note r;
  r.search = whole(a, "SEARCH");
  r.time = a.number("TIME");
  r.evicted = a.find("EVICTED") ? whole(a, "EVICTED") : 0;
  for (auto* c = node->first_node(); c != nullptr; c = c->next_sibling()) {
    refuse_text(c, node);
    if (c->type() != rapidxml::node_element) continue;
    if (iequals(name_of(c), "CALL")) {
      expect_leaf(c);
      attributes call(c, {"CALLER", "CALLEE"});
      r.calls.push_back({std::string(call.text_or("CALLER", "")), std::string(call.text("CALLEE"))});
      continue;
    }
    if (!iequals(name_of(c), "AT"))
      bad_argument("<EVIDENCE> holds only <AT> and <CALL> elements, not " + tag(name_of(c)));
    attributes at(c, {"CODE", "MACHINE", "SYNCOBJECT", "FILE"});
    evidence_focus f{std::string(at.text_or("CODE", "/Code")),
                     std::string(at.text_or("MACHINE", "/Machine")),
                     std::string(at.text_or("SYNCOBJECT", "/SyncObject")),
                     std::string(at.text_or("FILE", "/File")),
                     {}};
    for (auto* p = c->first_node(); p != nullptr; p = p->next_sibling()) {
      refuse_text(p, c);
      if (p->type() != rapidxml::node_element) continue;
      if (!iequals(name_of(p), "P"))
        bad_argument("<AT> holds only <P> elements, not " + tag(name_of(p)));
      f.processes.push_back(parse_counts(p));
    }
    r.foci.push_back(std::move(f));
  }
  return caf::make_message(std::move(r));
}

std::string evidence_argument(const evidence_note& x) {
  std::string body;
  for (auto& f : x.foci) {
    std::string ps;
    for (auto& c : f.processes) {
      auto p = element("P");
      p.count("PID", static_cast<std::uint64_t>(c.pid));
      // Another host's process (a daemon's): its host, as the pid alone may be another's too.
      if (!c.host.empty()) p.text("HOST", c.host);
      p.count("N", c.ticks)
          .count("RUNS", c.runs)
          .count("RUNS_MOST", c.runs_most)
          .count("SYNCS", c.syncs)
          .count("SYNCS_MOST", c.syncs_most)
          .count("IOS", c.ios)
          .count("IOS_MOST", c.ios_most)
          .number("OPS", c.io_ops)
          .number("BYTES", c.io_bytes)
          .number("FIRST", c.first)
          .number("LAST", c.last);
      // The shares where given, blame and idle threads where there are any.
      auto optional = [&](const char* name, double x, bool given) {
        if (given) p.number(name, x);
      };
      optional("RUNS_SHARE", c.runs_share, !std::isnan(c.runs_share));
      optional("SYNCS_SHARE", c.syncs_share, !std::isnan(c.syncs_share));
      optional("IOS_SHARE", c.ios_share, !std::isnan(c.ios_share));
      optional("RUNS_SAVING", c.runs_saving, !std::isnan(c.runs_saving));
      optional("SYNCS_SAVING", c.syncs_saving, !std::isnan(c.syncs_saving));
      optional("IOS_SAVING", c.ios_saving, !std::isnan(c.ios_saving));
      optional("RUNS_BLAMED", c.runs_blamed, c.runs_blamed != 0);
      optional("IOS_BLAMED", c.ios_blamed, c.ios_blamed != 0);
      optional("IDLE", c.idle, c.idle != 0);
      ps += p.leaf();
    }
    auto at = element("AT");
    at.text("CODE", f.code).text("MACHINE", f.machine).text("SYNCOBJECT", f.syncobject);
    if (!f.file.empty() && f.file != "/File") at.text("FILE", f.file);  // a focus on a file
    body += at.wrap(ps);
  }
  for (auto& c : x.calls) body += element("CALL").text("CALLER", c.caller).text("CALLEE", c.callee).leaf();
  return element("EVIDENCE")
      .count("SEARCH", x.search)
      .number("TIME", x.time)
      .count("EVICTED", x.evicted)
      .wrap(body);
}

}  // namespace perfdm::xml
