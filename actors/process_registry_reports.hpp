// The process registry's DyPer REPORTs: REPORT on request and the periodic reports of
// REPORTTIME (part of the process registry actor, over its state).
#pragma once

#include <caf/actor.hpp>
#include <caf/result.hpp>
#include <cstdint>

#include "actors/process_registry_state.hpp"

namespace perfdm {

// REPORT: DyPer's <MONITOR> for the process.
caf::result<caf::message> report_command(registry_actor self, caf::actor dm,
                                         const process_command& c);
// The next periodic report of `pid` in REPORTTIME ms, unless one is due already. `restart`:
// the one due is forgotten (REPORTTIME changed: the new period counts from now).
void schedule_report(registry_actor self, std::int32_t pid, bool restart = false);
// A periodic report fell due (report_tick_atom).
void periodic_report(registry_actor self, caf::actor dm, std::int32_t pid,
                     std::uint64_t generation);

}  // namespace perfdm
