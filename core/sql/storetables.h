#pragma once

// The virtual tables over a TraceStore (tracedatabase.h): eponymous, so `SELECT … FROM slice` needs no
// CREATE.

#include "model/tracestore.h"

#include <memory>

struct sqlite3;

namespace kinetoscope::sql {

// Registers slice, args, track, thread_track, thread, process, counter and flow on `db`. The tables live in
// what it returns, to be kept as long as the connection; null on failure.
std::shared_ptr<const void> registerStoreTables(sqlite3* db, const TraceStore& store);
// True while a table declares its schema (the authorizer lets that CREATE through, nothing else).
extern thread_local bool declaringTable;

} // namespace kinetoscope::sql
