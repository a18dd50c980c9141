#pragma once

// The virtual tables over a TraceStore (tracedatabase.h): eponymous, so `SELECT … FROM slice` needs no
// CREATE.

#include "model/tracestore.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

struct sqlite3;

namespace kinetoscope::sql {

// Registers the store's tables (slice, args, track, thread_track, thread, process, counter, flow), ours
// (kernel, operator, step, memory_event) and the report's (operators, kernels, …: docs/SQL.md) on `db`. The
// tables live in what it returns, to be kept as long as the connection; null on failure.
std::shared_ptr<const void> registerStoreTables(sqlite3* db, const TraceStore& store);
// A slice's id in those tables, and the slice of an id (nullopt when none has it).
std::int64_t sliceIdOf(const std::shared_ptr<const void>& tables, EventRef ref);
std::optional<EventRef> sliceOfId(const std::shared_ptr<const void>& tables, std::int64_t id);
// The names of the tables `registerStoreTables` returned, in order.
std::vector<std::string> registeredTableNames(const std::shared_ptr<const void>& tables);

} // namespace kinetoscope::sql
