#include "sql/vtab.h"

namespace kinetoscope::sql::vtab {

thread_local bool declaringTable = false;

int usable(const sqlite3_index_info* info, int column, unsigned char op) {
    for (int i = 0; i < info->nConstraint; ++i)
        if (info->aConstraint[i].usable && info->aConstraint[i].iColumn == column &&
            info->aConstraint[i].op == op)
            return i;
    return -1;
}

SliceIndex::SliceIndex(const TraceStore& s) {
    offset.reserve(s.tracks().size() + 1);
    offset.push_back(0);
    for (const Track& t : s.tracks())
        offset.push_back(offset.back() + std::int64_t(t.sliceCount()));
}

bool SliceIndex::find(std::int64_t id, std::uint32_t& track, std::uint32_t& row) const {
    if (id < 0 || id >= offset.back()) return false;
    const auto it = std::upper_bound(offset.begin(), offset.end(), id);
    track = std::uint32_t(it - offset.begin() - 1);
    row = std::uint32_t(id - offset[track]);
    return true;
}

namespace {

struct ListCursor final : Cursor {
    const ListTable* table;
    Rows rows;
    std::size_t row = 0;
    explicit ListCursor(const ListTable* t) : table(t) {}
    std::size_t end = SIZE_MAX;
    void filter(int plan, int, sqlite3_value** argv) override {
        rows = table->rowsFor(plan ? argv[0] : nullptr);
        row = 0;
        end = SIZE_MAX;
    }
    std::int64_t units() override { return std::int64_t(table->rowsFor(nullptr).count); }
    void filterUnits(std::int64_t begin, std::int64_t last) override {
        rows = table->rowsFor(nullptr);
        row = std::size_t(begin);
        end = std::size_t(last);
    }
    bool eof() const override { return row >= rows.count || row >= end; }
    void next() override { ++row; }
    sqlite3_int64 rowid() const override { return sqlite3_int64(row); }
    void column(ValueSink& out, int column) override { rows.column(out, row, column); }
};

// A query's values: SQLite copies text it is given (the store's views outlive no statement).
struct ContextSink final : ValueSink {
    sqlite3_context* ctx;
    explicit ContextSink(sqlite3_context* c) : ctx(c) {}
    void null() override { sqlite3_result_null(ctx); }
    void integer(std::int64_t value) override { sqlite3_result_int64(ctx, value); }
    void real(double value) override { sqlite3_result_double(ctx, value); }
    void text(std::string_view value) override {
        sqlite3_result_text64(ctx, value.data(), value.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
    }
};

struct VTab : sqlite3_vtab {
    const Table* table = nullptr;
};
struct VCursor : sqlite3_vtab_cursor {
    std::unique_ptr<Cursor> cursor;
};

int xConnect(sqlite3* db, void* aux, int, const char* const*, sqlite3_vtab** out, char**) {
    const Table* table = static_cast<const Table*>(aux);
    declaringTable = true; // the authorizer lets our own schema through, and nothing else
    const int rc = sqlite3_declare_vtab(db, table->schema().c_str());
    declaringTable = false;
    if (rc != SQLITE_OK) return rc;
    auto* v = new VTab();
    v->table = table;
    *out = v;
    return SQLITE_OK;
}
int xDisconnect(sqlite3_vtab* v) {
    delete static_cast<VTab*>(v);
    return SQLITE_OK;
}
int xBestIndex(sqlite3_vtab* v, sqlite3_index_info* info) {
    return static_cast<VTab*>(v)->table->bestIndex(info);
}
int xOpen(sqlite3_vtab* v, sqlite3_vtab_cursor** out) {
    auto* c = new VCursor();
    c->cursor = static_cast<VTab*>(v)->table->open();
    *out = c;
    return SQLITE_OK;
}
int xClose(sqlite3_vtab_cursor* c) {
    delete static_cast<VCursor*>(c);
    return SQLITE_OK;
}
int xFilter(sqlite3_vtab_cursor* c, int plan, const char*, int argc, sqlite3_value** argv) {
    static_cast<VCursor*>(c)->cursor->filter(plan, argc, argv);
    return SQLITE_OK;
}
int xNext(sqlite3_vtab_cursor* c) {
    static_cast<VCursor*>(c)->cursor->next();
    return SQLITE_OK;
}
int xEof(sqlite3_vtab_cursor* c) {
    return static_cast<VCursor*>(c)->cursor->eof();
}
int xColumn(sqlite3_vtab_cursor* c, sqlite3_context* ctx, int column) {
    ContextSink out(ctx);
    static_cast<VCursor*>(c)->cursor->column(out, column);
    return SQLITE_OK;
}
int xRowid(sqlite3_vtab_cursor* c, sqlite3_int64* rowid) {
    *rowid = static_cast<VCursor*>(c)->cursor->rowid();
    return SQLITE_OK;
}

// Eponymous and read-only: no xCreate (the table exists under its module's name), no xUpdate.
const sqlite3_module storeModule = {
    /* iVersion */ 0,
    /* xCreate */ nullptr,
    xConnect,
    xBestIndex,
    xDisconnect,
    /* xDestroy */ nullptr,
    xOpen,
    xClose,
    xFilter,
    xNext,
    xEof,
    xColumn,
    xRowid,
    /* xUpdate */ nullptr,
    /* xBegin */ nullptr,
    /* xSync */ nullptr,
    /* xCommit */ nullptr,
    /* xRollback */ nullptr,
    /* xFindFunction */ nullptr,
    /* xRename */ nullptr,
    /* xSavepoint */ nullptr,
    /* xRelease */ nullptr,
    /* xRollbackTo */ nullptr,
    /* xShadowName */ nullptr};

} // namespace

int ListTable::bestIndex(sqlite3_index_info* info) const {
    if (const int key = usable(info, 0, SQLITE_INDEX_CONSTRAINT_EQ); key >= 0) {
        info->aConstraintUsage[key].argvIndex = 1;
        info->idxNum = 1;
        info->estimatedCost = 10;
        info->estimatedRows = 10;
    } else {
        const double rows = rowEstimate();
        info->idxNum = 0;
        info->estimatedCost = rows;
        info->estimatedRows = sqlite3_int64(rows);
    }
    return SQLITE_OK;
}

std::unique_ptr<Cursor> ListTable::open() const {
    return std::make_unique<ListCursor>(this);
}

bool registerModules(sqlite3* db, const Registry& registry) {
    for (const auto& table : registry.tables)
        if (sqlite3_create_module_v2(db, table->name.c_str(), &storeModule, table.get(), nullptr) !=
            SQLITE_OK)
            return false;
    return true;
}

} // namespace kinetoscope::sql::vtab
