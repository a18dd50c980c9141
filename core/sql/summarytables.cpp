// The report's tables (docs/SQL.md): every table of `kinetoscope-cli summary --json`, read-only, with the
// same columns and the same values. One path: a table's first read runs the analyses of its report section
// (computeAnalysis, as the CLI and the viewer do), writes them with the one JSON writer (summaryToJson), and
// its rows are that document's array; its columns come from the same column descriptions the writer used
// (sections.h), so that an empty table still has them. `summary` holds every single figure of the document
// (key, value), one row each.

#include "sql/vtab.h"

#include "analysis/report/sections.h"
#include "analysis/report/summaryformat.h"

#include <simdjson.h>

#include <map>
#include <mutex>
#include <variant>

namespace kinetoscope::sql::vtab {

namespace {

enum class Affinity : std::uint8_t { Any, Integer, Real, Text };

struct SqlColumn {
    std::string name;
    Affinity affinity = Affinity::Any;
};

template <typename Row> std::vector<SqlColumn> columnsOf(const Columns<Row>& columns) {
    std::vector<SqlColumn> out;
    for (const Column<Row>& c : columns) {
        if (!(c.outputs & InJson)) continue;
        Affinity a = Affinity::Any;
        switch (c.format) {
        case CellFormat::Text:
        case CellFormat::Json:
            a = Affinity::Text;
            break;
        case CellFormat::Count:
        case CellFormat::Integer:
        case CellFormat::Bool:
            a = Affinity::Integer;
            break;
        default:
            a = Affinity::Real;
        }
        out.push_back({std::string(c.key), a});
    }
    return out;
}

// Where a table's rows are in the document: an array of objects at `path`, or {"columns": [...], "rows":
// [[...], ...]} there.
struct Entry {
    const char* name;
    ReportSection section;
    std::vector<std::string_view> path;
    std::function<std::vector<SqlColumn>()> columns; // null: the document's own "columns" list
};

const std::vector<Entry>& catalogue() {
    static const std::vector<Entry> entries = {
        {"operators",
         ReportSection::Operators,
         {"operators"},
         [] { return columnsOf(operatorColumns(true)); }},
        {"annotations",
         ReportSection::Operators,
         {"annotations"},
         [] { return columnsOf(operatorColumns(true)); }},
        {"kernels", ReportSection::Kernels, {"kernels"}, [] { return columnsOf(kernelColumns()); }},
        {"steps", ReportSection::Overview, {"steps"}, [] { return columnsOf(stepColumns()); }},
        {"recommendations",
         ReportSection::Recommendations,
         {"recommendations"},
         [] { return columnsOf(recommendationColumns()); }},
        {"gpu_idle", ReportSection::GpuWaits, {"gpu_idle"}, [] { return columnsOf(gpuIdleColumns()); }},
        {"temporal_breakdown",
         ReportSection::GpuWaits,
         {"temporal_breakdown"},
         [] { return columnsOf(temporalBreakdownColumns()); }},
        {"gpu_queue", ReportSection::GpuWaits, {"gpu_queue"}, [] { return columnsOf(gpuQueueColumns()); }},
        {"kernel_sequences",
         ReportSection::Sequences,
         {"kernel_sequences"},
         [] { return columnsOf(kernelSequenceColumns()); }},
        {"roofline", ReportSection::Roofline, {"perf_model"}, [] { return columnsOf(perfModelColumns()); }},
        {"roofline_not_modelled",
         ReportSection::Roofline,
         {"perf_model_not_modelled"},
         [] { return columnsOf(notModelledColumns()); }},
        {"rank_steps",
         ReportSection::Distributed,
         {"distributed", "steps"},
         [] { return columnsOf(rankStepColumns()); }},
        {"collectives",
         ReportSection::Distributed,
         {"distributed", "collectives"},
         [] { return columnsOf(collectiveColumns()); }},
        {"collective_instances",
         ReportSection::Distributed,
         {"distributed", "collective_instances"},
         nullptr},
        {"inductor_categories",
         ReportSection::Inductor,
         {"inductor", "trace", "categories"},
         [] { return columnsOf(inductorCategoryColumns()); }},
        {"inductor_graphs",
         ReportSection::Inductor,
         {"inductor", "graphs"},
         [] { return columnsOf(compiledGraphColumns()); }},
        {"critical_path_events",
         ReportSection::CriticalPath,
         {"critical_path", "events"},
         [] { return columnsOf(pathEventColumns()); }},
        {"critical_path_edges",
         ReportSection::CriticalPath,
         {"critical_path", "edges"},
         [] { return columnsOf(pathEdgeColumns()); }},
    };
    return entries;
}

using SqlValue = std::variant<std::monostate, std::int64_t, double, std::string>;

// A value of the document as the column's affinity has it: a real column's whole numbers stay reals, a nested
// value is its JSON text.
SqlValue valueOf(simdjson::dom::element e, Affinity affinity) {
    using simdjson::dom::element_type;
    switch (e.type()) {
    case element_type::NULL_VALUE:
        return std::monostate{};
    case element_type::BOOL:
        return std::int64_t(bool(e.get_bool()) ? 1 : 0);
    case element_type::INT64:
        if (affinity == Affinity::Real) return double(std::int64_t(e.get_int64()));
        return std::int64_t(e.get_int64());
    case element_type::UINT64:
        return double(std::uint64_t(e.get_uint64()));
    case element_type::DOUBLE:
        return double(e.get_double());
    case element_type::STRING:
        return std::string(std::string_view(e.get_string()));
    default:
        return simdjson::minify(e);
    }
}

// One report section's document, written once and parsed once. Only the parsed document is kept: its text
// and the parser's index of it go once parsed (for the 1 GB trace's report, a text of 22.6 MB).
struct Document {
    simdjson::dom::document parsed;
    simdjson::dom::element root;
    bool ok = false;
};

// The analyses run when a table first needs them, once per section (all of them for `summary`).
class Reports {
  public:
    explicit Reports(const TraceStore& store) : m_store(store) {}
    // Section nullopt: the whole document, as `summary --json --all-rows` writes it.
    const Document& document(std::optional<ReportSection> section) {
        std::lock_guard lock(m_mutex);
        // The whole document, once made (an export makes it first), serves every section's table.
        if (const auto whole = m_documents.find(-1); whole != m_documents.end() && whole->second)
            return *whole->second;
        const int key = section ? int(*section) : -1;
        auto& doc = m_documents[key];
        if (doc) return *doc;
        doc = std::make_unique<Document>();
        ReportSections sections;
        if (section)
            sections.set(std::size_t(*section));
        else
            sections = allReportSections();
        auto report =
            computeAnalysis(m_store, std::nullopt, OperatorGrouping::Name, KernelGrouping::Name, sections);
        if (has(sections, ReportSection::CriticalPath)) {
            std::string error;
            if (auto path = stepCriticalPath(m_store, std::nullopt, error))
                attachCriticalPath(*report, std::move(*path));
        }
        std::string json = summaryToJson(report->summary, report.get(), SIZE_MAX);
        report.reset();
        const std::size_t size = json.size();
        json.append(simdjson::SIMDJSON_PADDING, ' '); // (parsed where it is, not copied to pad it)
        simdjson::dom::parser parser;
        doc->ok = parser.parse_into_document(doc->parsed, json.data(), size, false).get(doc->root) ==
                  simdjson::SUCCESS;
        return *doc;
    }

  private:
    const TraceStore& m_store;
    std::mutex m_mutex;
    std::map<int, std::unique_ptr<Document>> m_documents;
};

struct Materialized {
    std::vector<SqlColumn> columns;
    std::vector<std::vector<SqlValue>> rows;
};

void result(ValueSink& out, const SqlValue& v) {
    if (const auto* i = std::get_if<std::int64_t>(&v)) return out.integer(*i);
    if (const auto* d = std::get_if<double>(&v)) return out.real(*d);
    if (const auto* s = std::get_if<std::string>(&v)) return out.text(*s);
    out.null();
}

std::string ddlOf(const std::vector<SqlColumn>& columns) {
    std::string ddl = "CREATE TABLE x(";
    for (std::size_t i = 0; i < columns.size(); ++i) {
        if (i) ddl += ", ";
        ddl += '"' + columns[i].name + '"';
        switch (columns[i].affinity) {
        case Affinity::Integer:
            ddl += " INTEGER";
            break;
        case Affinity::Real:
            ddl += " REAL";
            break;
        case Affinity::Text:
            ddl += " TEXT";
            break;
        case Affinity::Any:
            break;
        }
    }
    return ddl + ")";
}

// A table of the catalogue: its rows read from its section's document when first asked for.
class ReportTable final : public Table {
  public:
    ReportTable(const Entry& entry, std::shared_ptr<Reports> reports)
        : m_entry(entry), m_reports(std::move(reports)) {}
    std::string schema() const override {
        // A table that names its columns itself is computed to declare them.
        return ddlOf(m_entry.columns ? m_entry.columns() : table().columns);
    }
    int bestIndex(sqlite3_index_info* info) const override {
        info->idxNum = 0;
        info->estimatedCost = 1000;
        info->estimatedRows = 1000;
        return SQLITE_OK;
    }
    std::unique_ptr<Cursor> open() const override { return std::make_unique<RowsCursor>(table()); }

    struct RowsCursor final : Cursor {
        const Materialized& m;
        std::size_t row = 0;
        explicit RowsCursor(const Materialized& t) : m(t) {}
        std::size_t end = SIZE_MAX;
        void filter(int, int, sqlite3_value**) override { row = 0, end = SIZE_MAX; }
        std::int64_t units() override { return std::int64_t(m.rows.size()); }
        void filterUnits(std::int64_t begin, std::int64_t last) override {
            row = std::size_t(begin), end = std::size_t(last);
        }
        bool eof() const override { return row >= m.rows.size() || row >= end; }
        void next() override { ++row; }
        sqlite3_int64 rowid() const override { return sqlite3_int64(row); }
        void column(ValueSink& out, int c) override {
            if (std::size_t(c) < m.rows[row].size()) return result(out, m.rows[row][std::size_t(c)]);
            out.null();
        }
    };

  private:
    const Materialized& table() const {
        std::call_once(m_once, [this] { build(); });
        return m_table;
    }
    void build() const {
        if (m_entry.columns) m_table.columns = m_entry.columns();
        const Document& doc = m_reports->document(m_entry.section);
        simdjson::dom::element at = doc.root;
        bool found = doc.ok;
        for (std::string_view key : m_entry.path)
            found = found && at.is_object() && at.at_key(key).get(at) == simdjson::SUCCESS;
        if (!m_entry.columns) {
            // {"columns": [...], "rows": [[...]]}: the document names its columns.
            simdjson::dom::array names;
            if (found && at["columns"].get_array().get(names) == simdjson::SUCCESS)
                for (simdjson::dom::element n : names)
                    m_table.columns.push_back(
                        {std::string(std::string_view(n.get_string().value_unsafe())), Affinity::Any});
            simdjson::dom::array rows;
            if (found && at["rows"].get_array().get(rows) == simdjson::SUCCESS)
                for (simdjson::dom::element r : rows) {
                    auto& out = m_table.rows.emplace_back();
                    simdjson::dom::array values;
                    if (r.get_array().get(values) == simdjson::SUCCESS)
                        for (simdjson::dom::element v : values)
                            out.push_back(valueOf(v, Affinity::Any));
                }
            if (m_table.columns.empty()) m_table.columns.push_back({"none", Affinity::Any});
            return;
        }
        simdjson::dom::array rows;
        if (!found || at.get_array().get(rows) != simdjson::SUCCESS) return;
        for (simdjson::dom::element r : rows) {
            auto& out = m_table.rows.emplace_back(m_table.columns.size());
            for (std::size_t c = 0; c < m_table.columns.size(); ++c) {
                simdjson::dom::element v;
                if (r.at_key(m_table.columns[c].name).get(v) == simdjson::SUCCESS)
                    out[c] = valueOf(v, m_table.columns[c].affinity);
            }
        }
    }

    const Entry& m_entry;
    std::shared_ptr<Reports> m_reports;
    mutable std::once_flag m_once;
    mutable Materialized m_table;
};

// Every single figure of the whole document, by its path ("breakdown_us.kernel",
// "gpu_metrics.0.utilization"): the Overview's numbers. Arrays of objects are the tables above; an array of
// plain values is one figure, its JSON text.
class FigureTable final : public Table {
  public:
    explicit FigureTable(std::shared_ptr<Reports> reports) : m_reports(std::move(reports)) {}
    std::string schema() const override { return "CREATE TABLE x(key TEXT, value)"; }
    int bestIndex(sqlite3_index_info* info) const override {
        info->idxNum = 0;
        info->estimatedCost = 1000;
        return SQLITE_OK;
    }
    std::unique_ptr<Cursor> open() const override {
        std::call_once(m_once, [this] {
            const Document& doc = m_reports->document(std::nullopt);
            if (doc.ok) flatten(doc.root, "");
        });
        return std::make_unique<ReportTable::RowsCursor>(m_table);
    }

  private:
    void flatten(simdjson::dom::element e, const std::string& key) const {
        simdjson::dom::object object;
        if (e.get_object().get(object) == simdjson::SUCCESS) {
            for (auto field : object)
                flatten(field.value,
                        key.empty() ? std::string(field.key) : key + "." + std::string(field.key));
            return;
        }
        simdjson::dom::array array;
        if (e.get_array().get(array) == simdjson::SUCCESS) {
            bool objects = false;
            for (simdjson::dom::element v : array)
                objects = objects || v.is_object() || v.is_array();
            if (objects) return;
        }
        m_table.rows.push_back({key, valueOf(e, Affinity::Any)});
    }
    std::shared_ptr<Reports> m_reports;
    mutable std::once_flag m_once;
    mutable Materialized m_table;
};

} // namespace

void addSummaryTables(Registry& registry) {
    auto reports = std::make_shared<Reports>(*registry.store);
    registry.state.push_back(reports);
    for (const Entry& entry : catalogue()) {
        auto table = std::make_unique<ReportTable>(entry, reports);
        table->name = entry.name;
        registry.tables.push_back(std::move(table));
    }
    // An export reads every table: one analysis of every section, not one a table.
    registry.beforeExport = [reports] { reports->document(std::nullopt); };
    auto figures = std::make_unique<FigureTable>(reports);
    figures->name = "summary";
    registry.tables.push_back(std::move(figures));
}

} // namespace kinetoscope::sql::vtab
