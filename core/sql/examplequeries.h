#pragma once

// The stored queries the viewer's Query tab offers and docs/SQL.md lists: real questions users bring, each a
// starting point to edit. Every one runs on the corpus' traces (tst_sql). Parameters the viewer binds:
// `:from` and `:to` (the area selection, else the visible range, in ns) and `:selected_id` (the selected
// slice's id).

#include <string_view>
#include <vector>

namespace kinetoscope::sql {

struct ExampleQuery {
    std::string_view title;
    std::string_view sql;
};

const std::vector<ExampleQuery>& exampleQueries();

} // namespace kinetoscope::sql
