#include "import/sqlitetrace.h"

#include <cstdio>
#include <cstring>

namespace kinetoscope {

namespace sqlitetrace {

ReadOnlyDatabase::ReadOnlyDatabase(const std::string& path) {
    std::string uri = "file:";
    for (unsigned char c : path) {
        if (c == '?' || c == '#' || c == '%' || c < 0x20) {
            char hex[4];
            std::snprintf(hex, sizeof hex, "%%%02X", c);
            uri += hex;
        } else {
            uri += char(c);
        }
    }
    uri += "?immutable=1";
    if (sqlite3_open_v2(uri.c_str(), &m_db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX,
                        nullptr) != SQLITE_OK) {
        m_error = m_db ? sqlite3_errmsg(m_db) : "cannot open";
        sqlite3_close_v2(m_db);
        m_db = nullptr;
        return;
    }
    sqlite3_db_config(m_db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, nullptr);
    sqlite3_db_config(m_db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, nullptr);
    // Tables and views, by name. A view that runs a recursive query could return rows without end (a hostile
    // file loops the reader): refused. Views that name each other in a circle SQLite refuses itself.
    std::string recursive;
    each("SELECT name, type, lower(coalesce(sql, '')) FROM sqlite_master WHERE type IN ('table', 'view')",
         [&](sqlite3_stmt* s) {
             m_tables.insert(text(s, 0));
             if (text(s, 1) == "view" && text(s, 2).find("recursive") != std::string::npos)
                 recursive = text(s, 0);
         });
    if (!recursive.empty() && m_error.empty())
        m_error = "view " + recursive + " runs a recursive query, which could run without end: refused";
    if (m_tables.empty() && m_error.empty()) m_error = "no tables (not a SQLite database, or an empty one)";
}

} // namespace sqlitetrace

using sqlitetrace::ReadOnlyDatabase;

bool isSqliteHeader(std::string_view firstBytes) {
    return firstBytes.size() >= 16 && std::memcmp(firstBytes.data(), "SQLite format 3\0", 16) == 0;
}

SqliteTraceKind sqliteTraceKind(const std::string& path) {
    ReadOnlyDatabase db(path);
    if (!db.ok()) return SqliteTraceKind::None;
    if (db.has("CUPTI_ACTIVITY_KIND_KERNEL") || db.has("CUPTI_ACTIVITY_KIND_RUNTIME") ||
        db.has("NVTX_EVENTS") || (db.has("StringIds") && db.has("TARGET_INFO_SESSION_START_TIME")))
        return SqliteTraceKind::Nsight;
    if (db.has("rocpd_op") && db.has("rocpd_api")) return SqliteTraceKind::RocmRpd;
    if (db.has("rocpd_info_agent") || db.has("rocpd_kernel_dispatch") || db.has("rocpd_region"))
        return SqliteTraceKind::Rocpd;
    return SqliteTraceKind::None;
}

} // namespace kinetoscope
