#pragma once

// A table's columns, described once: what each is called in the JSON, in the text report and in the viewer,
// what it holds and how it is written. One writer turns rows into a JSON array of objects (writeRows) or an
// aligned text table (rowsText); the viewer's table models read the same description through a thin Qt
// adapter (app/tables/rowsmodel.h), so a column's name, unit and meaning cannot drift between the three.

#include "model/jsonwriter.h"
#include "model/timeconv.h"

#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kinetoscope {

// What a cell holds and how each output writes it.
enum class CellFormat : std::uint8_t {
    Text,    // a string
    Json,    // JSON text written as it is (the trace's own "Input Dims" lists); shown as its text
    Count,   // an unsigned integer
    Integer, // a signed integer (a device, a stream, a pid)
    Micros,  // a time in ns, written as microseconds with three decimals; the viewer shows a duration
    Fixed,   // a real with `decimals` decimals everywhere
    Share,   // a fraction of 1: JSON with `decimals` decimals, the viewer a percentage
    Percent, // already a percentage: `decimals` decimals, the viewer adds "%"
    General, // a real, six significant digits in JSON, `decimals` decimals in the viewer
    Exact,   // a real, its shortest exact form in JSON, `decimals` decimals in the viewer
    Bool,    // true or false; the viewer shows "yes" or nothing
};

// One cell's value. A null cell is JSON null and an empty text or table cell.
struct Cell {
    enum class Kind : std::uint8_t { Null, Text, Unsigned, Signed, Real, Bool } kind = Kind::Null;
    std::string text;
    std::uint64_t unsignedValue = 0;
    std::int64_t signedValue = 0;
    double real = 0;
    bool flag = false;

    static Cell null() { return {}; }
    static Cell of(std::string_view v) { return {Kind::Text, std::string(v)}; }
    static Cell of(std::uint64_t v) { return {Kind::Unsigned, {}, v}; }
    static Cell of(std::int64_t v) { return {Kind::Signed, {}, 0, v}; }
    static Cell of(double v) { return {Kind::Real, {}, 0, 0, v}; }
    static Cell of(bool v) { return {Kind::Bool, {}, 0, 0, 0, v}; }
    bool isNull() const { return kind == Kind::Null; }
    // The number a numeric cell holds, whatever its kind (0 for text and null).
    double number() const;
};

// Short names for the cells a column's value function makes (each picks one overload of Cell::of).
namespace cells {
inline Cell count(std::uint64_t v) {
    return Cell::of(v);
}
inline Cell integer(std::int64_t v) {
    return Cell::of(v);
}
inline Cell text(std::string_view v) {
    return Cell::of(v);
}
inline Cell real(double v) {
    return Cell::of(v);
}
inline Cell optionalReal(std::optional<double> v) {
    return v ? Cell::of(*v) : Cell::null();
}
// A nested JSON value, written by its own writer `write(JsonWriter&)`: the same text as written in place.
template <typename Write> Cell nested(Write write) {
    std::string out;
    JsonWriter w(out);
    write(w);
    return Cell::of(std::string_view(out));
}
} // namespace cells

// Which outputs show a column.
enum ColumnOutput : std::uint8_t { InJson = 1, InText = 2, InTable = 4, Everywhere = 7 };

template <typename Row> struct Column {
    std::string_view key;   // the JSON member ("host_total_us")
    std::string_view title; // the header of the text table (with " us" after a time) and of the viewer's
    CellFormat format = CellFormat::Text;
    std::function<Cell(const Row&)> value;
    std::uint8_t outputs = Everywhere;
    int decimals = 0;
    std::string_view tip = {}; // the viewer's header tooltip
    // JSON: leave the member out when it is null or empty text. Text: elide beyond this many bytes (0:
    // never).
    bool omitWhenEmpty = false;
    std::size_t textWidth = 0;
    // Text in fixed columns (a table whose every text column gives one): printf's field width in bytes,
    // negative for left-aligned; the columns are one space apart and the header has no rule.
    int fieldWidth = 0;
};

template <typename Row> using Columns = std::vector<Column<Row>>;

// One cell into JSON, as its column's format says.
void writeCell(JsonWriter<std::string>& w, CellFormat format, int decimals, const Cell& cell);
// One cell as the text report writes it (times as microseconds, no unit).
std::string cellText(CellFormat format, int decimals, const Cell& cell);

// At most `max` bytes: cut on a UTF-8 boundary and ended with "...".
std::string elideText(const std::string& text, std::size_t max);
// The texts of one column, each elided to at most `max` bytes (about), so that texts that differ still read
// differently: where the plain cut would make two alike (kernels named alike for their first 60 bytes), those
// show their start, "...", and the part where they differ.
std::vector<std::string> elideDistinct(const std::vector<std::string>& texts, std::size_t max);

// A column of the text table: its header and whether it is right-aligned.
struct TextColumn {
    std::string title;
    bool numeric = false;
    int fieldWidth = 0; // see Column::fieldWidth
};
// An aligned table: the headers, a rule, then the rows; numbers right-aligned, text left. When every column
// has a field width, fixed columns instead.
std::string renderTextTable(const std::vector<TextColumn>& columns,
                            const std::vector<std::vector<std::string>>& rows);

// The rows (the first `limit`) as one JSON array of objects, each holding the columns meant for JSON, then
// what `extra` adds to the row (the MCP server's event ids and links).
template <typename Row>
void writeRows(JsonWriter<std::string>& w, const Columns<Row>& columns, const std::vector<Row>& rows,
               JsonLayout layout, std::size_t limit = std::numeric_limits<std::size_t>::max(),
               const std::function<void(JsonWriter<std::string>&, const Row&)>& extra = {}) {
    w.beginArray(layout);
    for (std::size_t i = 0; i < rows.size() && i < limit; ++i) {
        w.beginObject();
        for (const Column<Row>& c : columns) {
            if (!(c.outputs & InJson)) continue;
            const Cell cell = c.value(rows[i]);
            if (c.omitWhenEmpty && (cell.isNull() || (cell.kind == Cell::Kind::Text && cell.text.empty())))
                continue;
            w.key(c.key);
            writeCell(w, c.format, c.decimals, cell);
        }
        if (extra) extra(w, rows[i]);
        w.endObject();
    }
    w.endArray();
}

// The rows (the first `limit`) as an aligned text table of the columns meant for text.
template <typename Row>
std::string rowsText(const Columns<Row>& columns, const std::vector<Row>& rows,
                     std::size_t limit = std::numeric_limits<std::size_t>::max()) {
    std::vector<TextColumn> shown;
    std::vector<const Column<Row>*> used;
    for (const Column<Row>& c : columns) {
        if (!(c.outputs & InText)) continue;
        const bool numeric = c.format != CellFormat::Text && c.format != CellFormat::Json;
        shown.push_back(
            {std::string(c.title) + (c.format == CellFormat::Micros ? " us" : ""), numeric, c.fieldWidth});
        used.push_back(&c);
    }
    std::vector<std::vector<std::string>> cells;
    for (std::size_t i = 0; i < rows.size() && i < limit; ++i) {
        std::vector<std::string>& line = cells.emplace_back();
        for (const Column<Row>* c : used)
            line.push_back(cellText(c->format, c->decimals, c->value(rows[i])));
    }
    for (std::size_t k = 0; k < used.size(); ++k) {
        if (!used[k]->textWidth) continue;
        std::vector<std::string> column(cells.size());
        for (std::size_t i = 0; i < cells.size(); ++i)
            column[i] = std::move(cells[i][k]);
        column = elideDistinct(column, used[k]->textWidth);
        for (std::size_t i = 0; i < cells.size(); ++i)
            cells[i][k] = std::move(column[i]);
    }
    return renderTextTable(shown, cells);
}

} // namespace kinetoscope
