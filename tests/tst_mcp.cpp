// The MCP server (cli/mcp, issue 64): JSON-RPC decoding and errors, version negotiation, every tool's answer
// against the CLI's own report on real traces, tool errors that leave the server working, HTTP request
// parsing, and kinetoscope:// links. The official TypeScript SDK drives the same server in tests/mcp.
#include "analysis/report/summaryformat.h"
#include "mcp/server.h"
#include "mcp/transport.h"
#include "model/viewlink.h"
#include "sql/tracedatabase.h"
#include "testsupport.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <fstream>
#include <sys/stat.h>
#include <utime.h>

using namespace kinetoscope;
using namespace kinetoscope::mcp;

namespace {

QJsonObject parse(const std::string& text) {
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(text), &error);
    if (error.error != QJsonParseError::NoError)
        qWarning() << "not JSON:" << error.errorString() << text.c_str();
    return doc.object();
}

std::string request(int id, const std::string& method, const QJsonObject& params = {}) {
    QJsonObject o{{"jsonrpc", "2.0"}, {"id", id}, {"method", QString::fromStdString(method)}};
    o["params"] = params;
    return QJsonDocument(o).toJson(QJsonDocument::Compact).toStdString();
}

// A tools/call's result (the JSON-RPC result object).
QJsonObject call(Server& server, const std::string& tool, const QJsonObject& arguments) {
    static int id = 100;
    const QJsonObject answer = parse(server.handle(
        request(++id, "tools/call", {{"name", QString::fromStdString(tool)}, {"arguments", arguments}})));
    if (answer.contains("error"))
        qWarning() << "JSON-RPC error:" << answer["error"].toObject()["message"].toString();
    return answer["result"].toObject();
}

QString text(const QJsonObject& result) {
    return result["content"].toArray().first().toObject()["text"].toString();
}

// Every member of `theirs` (a row of the CLI's JSON) is in `ours` with the same value.
bool rowHolds(const QJsonObject& ours, const QJsonObject& theirs, QString& why) {
    for (auto it = theirs.begin(); it != theirs.end(); ++it)
        if (ours.value(it.key()) != it.value()) {
            why = it.key() + ": ours " +
                  QJsonDocument(QJsonArray{ours.value(it.key())}).toJson(QJsonDocument::Compact) +
                  ", the report's " + QJsonDocument(QJsonArray{it.value()}).toJson(QJsonDocument::Compact);
            return false;
        }
    return true;
}

Server makeServer() {
    return Server({defaultViewerPath(), 4, {}});
}

} // namespace

class TestMcp : public QObject {
    Q_OBJECT

  private slots:
    void decodeErrors_data() {
        QTest::addColumn<QString>("message");
        QTest::addColumn<int>("code");
        QTest::addColumn<bool>("idKept");
        QTest::newRow("not JSON") << "{\"jsonrpc\": " << -32700 << false;
        QTest::newRow("empty") << "" << -32700 << false;
        QTest::newRow("batch") << R"([{"jsonrpc":"2.0","id":1,"method":"ping"}])" << -32600 << false;
        QTest::newRow("a number") << "42" << -32600 << false;
        QTest::newRow("no jsonrpc") << R"({"id":1,"method":"ping"})" << -32600 << true;
        QTest::newRow("jsonrpc 1.0") << R"({"jsonrpc":"1.0","id":1,"method":"ping"})" << -32600 << true;
        QTest::newRow("null id") << R"({"jsonrpc":"2.0","id":null,"method":"ping"})" << -32600 << false;
        QTest::newRow("real id") << R"({"jsonrpc":"2.0","id":1.5,"method":"ping"})" << -32600 << false;
        QTest::newRow("no method") << R"({"jsonrpc":"2.0","id":1})" << -32600 << true;
        QTest::newRow("method a number") << R"({"jsonrpc":"2.0","id":1,"method":7})" << -32600 << true;
        QTest::newRow("params an array")
            << R"({"jsonrpc":"2.0","id":1,"method":"ping","params":[1]})" << -32602 << true;
        QTest::newRow("unknown method")
            << R"({"jsonrpc":"2.0","id":1,"method":"resources/list"})" << -32601 << true;
        QTest::newRow("call without name")
            << R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}})" << -32602 << true;
        QTest::newRow("unknown tool")
            << R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"rm","arguments":{}}})"
            << -32602 << true;
        QTest::newRow("arguments a string")
            << R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"steps","arguments":"x"}})"
            << -32602 << true;
    }
    void decodeErrors() {
        QFETCH(QString, message);
        QFETCH(int, code);
        QFETCH(bool, idKept);
        Server server = makeServer();
        const QJsonObject answer = parse(server.handle(message.toStdString()));
        QCOMPARE(answer["jsonrpc"].toString(), QString("2.0"));
        QCOMPARE(answer["error"].toObject()["code"].toInt(), code);
        QVERIFY(!answer["error"].toObject()["message"].toString().isEmpty());
        QCOMPARE(answer["id"].isNull(), !idKept);
        if (idKept) QCOMPARE(answer["id"].toInt(), 1);
        // The server still answers after it.
        QCOMPARE(parse(server.handle(request(2, "ping")))["result"].toObject(), QJsonObject());
    }

    void notificationsGetNoAnswer() {
        Server server = makeServer();
        QVERIFY(server.handle(R"({"jsonrpc":"2.0","method":"notifications/initialized"})").empty());
        QVERIFY(
            server.handle(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}})")
                .empty());
        QVERIFY(server.handle(R"({"jsonrpc":"2.0","id":"s1","result":{}})").empty()); // a client's response
        QCOMPARE(parse(server.handle(R"({"jsonrpc":"2.0","id":"abc","method":"ping"})"))["id"].toString(),
                 QString("abc"));
    }

    void versionNegotiation_data() {
        QTest::addColumn<QString>("asked");
        QTest::addColumn<QString>("agreed");
        QTest::newRow("2025-06-18") << "2025-06-18"
                                    << "2025-06-18";
        QTest::newRow("2025-11-25") << "2025-11-25"
                                    << "2025-11-25";
        QTest::newRow("2025-03-26") << "2025-03-26"
                                    << "2025-03-26";
        QTest::newRow("older") << "2024-11-05"
                               << "2025-11-25";
        QTest::newRow("future") << "2099-01-01"
                                << "2025-11-25";
    }
    void versionNegotiation() {
        QFETCH(QString, asked);
        QFETCH(QString, agreed);
        Server server = makeServer();
        const QJsonObject result = parse(server.handle(request(
            1, "initialize", {{"protocolVersion", asked}, {"capabilities", QJsonObject()}})))["result"]
                                       .toObject();
        QCOMPARE(result["protocolVersion"].toString(), agreed);
        QCOMPARE(result["serverInfo"].toObject()["name"].toString(), QString("kinetoscope"));
        QVERIFY(result["capabilities"].toObject().contains("tools"));
        QVERIFY(!result["instructions"].toString().isEmpty());
    }

    // Every tool lists a schema of an object whose required arguments are among its properties.
    void toolList() {
        Server server = makeServer();
        const QJsonArray tools =
            parse(server.handle(request(1, "tools/list")))["result"].toObject()["tools"].toArray();
        QStringList names;
        for (const QJsonValue& t : tools) {
            const QJsonObject tool = t.toObject();
            names << tool["name"].toString();
            const QJsonObject schema = tool["inputSchema"].toObject();
            QCOMPARE(schema["type"].toString(), QString("object"));
            const QJsonObject properties = schema["properties"].toObject();
            QVERIFY2(!properties.isEmpty(), qPrintable(tool["name"].toString()));
            for (const QJsonValue& r : schema["required"].toArray())
                QVERIFY2(properties.contains(r.toString()),
                         qPrintable(tool["name"].toString() + ": " + r.toString()));
            QVERIFY(!tool["description"].toString().isEmpty());
            QCOMPARE(tool["annotations"].toObject()["readOnlyHint"].toBool(), true);
        }
        QCOMPARE(names, QStringList({"open_trace", "summary", "top_kernels", "top_operators", "steps",
                                     "gpu_idle", "recommendations", "slices", "explain_event", "query",
                                     "compare", "job", "memory_snapshot", "render"}));
    }

    // A tool's failure is a tool error with the one-line message; the next call works.
    void toolErrors_data() {
        QTest::addColumn<QString>("tool");
        QTest::addColumn<QJsonObject>("arguments");
        QTest::addColumn<QString>("says");
        QTest::newRow("missing file") << "open_trace" << QJsonObject{{"path", "/nonexistent/t.json"}}
                                      << "/nonexistent/t.json: no such file";
        QTest::newRow("no path") << "open_trace" << QJsonObject{} << "argument 'path' is required";
        QTest::newRow("unknown id") << "steps" << QJsonObject{{"trace", "t99"}}
                                    << "t99: no trace has this id";
        QTest::newRow("misspelt argument")
            << "open_trace" << QJsonObject{{"pth", "x"}} << "unknown argument 'pth'";
        QTest::newRow("limit a string") << "top_kernels" << QJsonObject{{"trace", "t1"}, {"limit", "ten"}}
                                        << "argument 'limit' must be an integer";
        QTest::newRow("limit zero") << "top_kernels" << QJsonObject{{"trace", "t1"}, {"limit", 0}}
                                    << "argument 'limit' must be between 1";
        QTest::newRow("bad sql") << "query" << QJsonObject{{"trace", "t1"}, {"sql", "SELEC 1"}}
                                 << "line 1, column";
        QTest::newRow("a write") << "query" << QJsonObject{{"trace", "t1"}, {"sql", "CREATE TABLE x(a)"}}
                                 << "query:";
        QTest::newRow("unknown event") << "explain_event" << QJsonObject{{"trace", "t1"}, {"id", 999999999}}
                                       << "no event has id 999999999";
        QTest::newRow("bad section") << "summary"
                                     << QJsonObject{{"trace", "t1"}, {"sections", QJsonArray{"nope"}}}
                                     << "unknown section 'nope'";
        QTest::newRow("not a snapshot")
            << "memory_snapshot" << QJsonObject{{"path", "/etc/hostname"}} << "/etc/hostname";
        QTest::newRow("job without files")
            << "job" << QJsonObject{{"paths", QJsonArray{}}} << "argument 'paths' is required";
    }
    void toolErrors() {
        QFETCH(QString, tool);
        QFETCH(QJsonObject, arguments);
        QFETCH(QString, says);
        Server server = makeServer();
        const std::string trace = test::tracePath(test::traces::htaMi250);
        QVERIFY(!call(server, "open_trace", {{"path", QString::fromStdString(trace)}})["isError"].toBool());
        const QJsonObject result = call(server, tool.toStdString(), arguments);
        QVERIFY2(result["isError"].toBool(), qPrintable(text(result)));
        QVERIFY2(text(result).contains(says), qPrintable(text(result)));
        QVERIFY(!result.contains("structuredContent"));
        QVERIFY(!call(server, "steps", {{"trace", "t1"}})["isError"].toBool());
    }

    // The report's tables: the rows of `summary --json`, each with evidence that names a real event.
    void reportTables_data() {
        QTest::addColumn<QString>("trace");
        for (const char* t : {test::traces::qwenH100, test::traces::b200Eager, test::traces::bertMi300})
            QTest::newRow(t) << QString::fromStdString(test::tracePath(t));
    }
    void reportTables() {
        QFETCH(QString, trace);
        Server server = makeServer();
        const QJsonObject opened = call(server, "open_trace", {{"path", trace}});
        QVERIFY2(!opened["isError"].toBool(), qPrintable(text(opened)));
        const QJsonObject head = opened["structuredContent"].toObject();
        QCOMPARE(head["trace_id"].toString(), QString("t1"));

        LoadResult loaded = loadTrace(trace.toStdString());
        QVERIFY(loaded.ok());
        const auto report =
            computeAnalysis(*loaded.store, std::nullopt, OperatorGrouping::Name, KernelGrouping::Name);
        const QJsonObject cli = parse(summaryToJson(report->summary, report.get()));
        sql::TraceDatabase db(*loaded.store);

        const std::pair<const char*, const char*> tables[] = {{"top_kernels", "kernels"},
                                                              {"top_operators", "operators"},
                                                              {"steps", "steps"},
                                                              {"gpu_idle", "gpu_idle"},
                                                              {"recommendations", "recommendations"}};
        for (const auto& [tool, member] : tables) {
            const QJsonArray theirs = cli[member].toArray();
            const QJsonObject answer =
                call(server, tool, {{"trace", "t1"}, {"limit", 7}})["structuredContent"].toObject();
            QCOMPARE(answer["total_rows"].toInt(), theirs.size());
            const QJsonArray ours = answer["rows"].toArray();
            QCOMPARE(ours.size(), std::min<qsizetype>(7, theirs.size()));
            for (qsizetype i = 0; i < ours.size(); ++i) {
                QString why;
                QVERIFY2(rowHolds(ours[i].toObject(), theirs[i].toObject(), why),
                         qPrintable(QString(tool) + ": " + why));
                const QJsonObject row = ours[i].toObject();
                // Each row with where it shows (a GPU stream's idle time: its longest gap).
                QVERIFY2(row.contains("link"), qPrintable(QString(tool)));
                std::string linkError;
                const auto link = parseViewLink(row["link"].toString().toStdString(), linkError);
                QVERIFY2(link, linkError.c_str());
                QCOMPARE(link->files,
                         std::vector<std::string>{QFileInfo(trace).canonicalFilePath().toStdString()});
                if (!row.contains("event_id")) continue;
                // The evidence is a real event: the kernel row's longest launch, the operator row's longest
                // call.
                const auto event = db.query("SELECT name, dur FROM slice WHERE id = :id",
                                            {{"id", std::int64_t(row["event_id"].toDouble())}});
                QVERIFY2(event.rows.size() == 1,
                         qPrintable(QString(tool) + " event " + QString::number(row["event_id"].toDouble()) +
                                    " " + QString::fromStdString(event.error)));
                if (QString(tool) == "gpu_idle") {
                    // The event that ended the longest gap starts where the gap ends; the gap is one of the
                    // stream's gaps, so no longer than their sum.
                    const auto start = db.query("SELECT ts FROM slice WHERE id = :id",
                                                {{"id", std::int64_t(row["event_id"].toDouble())}});
                    const auto ns = [](const QJsonValue& us) { return std::llround(us.toDouble() * 1000); };
                    QCOMPARE(std::get<std::int64_t>(start.rows[0][0]),
                             ns(row["longest_gap_start_us"]) + ns(row["longest_gap_us"]));
                    QVERIFY(ns(row["longest_gap_us"]) <=
                            ns(row["host_wait_us"]) + ns(row["kernel_wait_us"]) + ns(row["other_us"]));
                }
                if (QString(tool) == "top_kernels") {
                    QCOMPARE(QString::fromStdString(sql::valueText(event.rows[0][0])),
                             row["name"].toString());
                    QCOMPARE(QString::fromStdString(formatMicros(std::get<std::int64_t>(event.rows[0][1]))),
                             QString::number(row["max_us"].toDouble(), 'f', 3));
                }
            }
        }
        // The summary tool's report is the CLI's document for the same sections.
        const QJsonObject summary =
            call(server, "summary", {{"trace", "t1"}, {"sections", QJsonArray{"overview"}}});
        const auto overview =
            computeAnalysis(*loaded.store, std::nullopt, OperatorGrouping::Name, KernelGrouping::Name,
                            ReportSections().set(std::size_t(ReportSection::Overview)));
        QCOMPARE(summary["structuredContent"].toObject()["report"].toObject(),
                 parse(summaryToJson(overview->summary, overview.get())));
    }

    // Slices, explain_event and query against the SQL layer they read.
    void events() {
        Server server = makeServer();
        const QString trace = QString::fromStdString(test::tracePath(test::traces::qwenH100));
        LoadResult loaded = loadTrace(trace.toStdString());
        QVERIFY(loaded.ok());
        sql::TraceDatabase db(*loaded.store);
        const auto first = db.query("SELECT min(ts), max(ts) FROM slice");
        const std::int64_t from = std::get<std::int64_t>(first.rows[0][0]);
        const std::int64_t to = from + (std::get<std::int64_t>(first.rows[0][1]) - from) / 3;
        const auto count =
            db.query("SELECT count(*) FROM slice s JOIN track t ON t.id = s.track_id WHERE s.ts >= :a AND "
                     "s.ts <= :b AND instr(s.name, 'gemm') > 0",
                     {{"a", from}, {"b", to}});
        const QJsonObject slices = call(server, "slices",
                                        {{"trace", trace},
                                         {"start_us", double(from) / 1000},
                                         {"end_us", double(to) / 1000},
                                         {"name", "gemm"},
                                         {"limit", 5}})["structuredContent"]
                                       .toObject();
        QCOMPARE(slices["total_rows"].toInteger(), std::get<std::int64_t>(count.rows[0][0]));
        QVERIFY(slices["total_rows"].toInt() > 5);
        QCOMPARE(slices["rows"].toArray().size(), 5);

        // A kernel: its launching call and operator are the kernel table's.
        const auto kernel =
            db.query("SELECT id, launch_id, operator_id FROM kernel WHERE operator_id IS NOT NULL LIMIT 1");
        QCOMPARE(kernel.rows.size(), std::size_t(1));
        const QJsonObject explained =
            call(server, "explain_event",
                 {{"trace", trace},
                  {"id", qint64(std::get<std::int64_t>(kernel.rows[0][0]))}})["structuredContent"]
                .toObject();
        QCOMPARE(explained["launched_by"].toObject()["id"].toInteger(),
                 std::get<std::int64_t>(kernel.rows[0][1]));
        QCOMPARE(explained["operator"].toObject()["id"].toInteger(),
                 std::get<std::int64_t>(kernel.rows[0][2]));
        QVERIFY(!explained["parents"].toArray().isEmpty() ||
                explained["event"].toObject()["depth"].toInt() == 0);
        QVERIFY(!explained["event"].toObject()["args"].toObject().isEmpty());
        // Its launching operator launched it, among the kernels it lists (all of them, by the count).
        const QJsonObject op = call(server, "explain_event",
                                    {{"trace", trace},
                                     {"id", qint64(std::get<std::int64_t>(kernel.rows[0][2]))},
                                     {"limit", 1000}})["structuredContent"]
                                   .toObject();
        bool listed = false;
        for (const QJsonValue& k : op["kernels"].toArray())
            listed = listed || k.toObject()["id"].toInteger() == std::get<std::int64_t>(kernel.rows[0][0]);
        QVERIFY(listed);
        QCOMPARE(op["kernels_total"].toInt(), op["kernels"].toArray().size());
        // Its parents go outward: each encloses the one before.
        const auto ns = [](const QJsonValue& us) { return std::llround(us.toDouble() * 1000); };
        auto inner = explained["event"].toObject();
        for (const QJsonValue& p : explained["parents"].toArray()) {
            const QJsonObject parent = p.toObject();
            QVERIFY(ns(parent["ts_us"]) <= ns(inner["ts_us"]));
            QVERIFY(ns(parent["ts_us"]) + ns(parent["dur_us"]) >= ns(inner["ts_us"]) + ns(inner["dur_us"]));
            inner = parent;
        }

        const std::string sql =
            "SELECT name, count(*) AS n, sum(dur) AS total FROM kernel GROUP BY name ORDER BY total DESC";
        const auto expected = db.query(sql);
        const QJsonObject answer =
            call(server, "query",
                 {{"trace", trace}, {"sql", QString::fromStdString(sql)}, {"limit", 3}})["structuredContent"]
                .toObject();
        QCOMPARE(answer["total_rows"].toInt(), int(expected.rows.size()));
        QCOMPARE(answer["rows"].toArray().size(), 3);
        for (int i = 0; i < 3; ++i) {
            const QJsonArray row = answer["rows"].toArray()[i].toArray();
            QCOMPARE(row[0].toString().toStdString(), std::get<std::string>(expected.rows[i][0]));
            QCOMPARE(row[2].toInteger(), std::get<std::int64_t>(expected.rows[i][2]));
        }
    }

    // `mcp --root DIR`: the tools read under DIR only, whatever path or link leads out of it; devices never.
    void rootConfines() {
        QTemporaryDir dir;
        const std::string inside = dir.filePath("in.json.gz").toStdString();
        {
            std::ifstream in(test::tracePath(test::traces::htaMi250), std::ios::binary);
            std::ofstream out(inside, std::ios::binary);
            out << in.rdbuf();
        }
        QVERIFY(QFile::link("/etc", dir.filePath("escape")));
        Server server({defaultViewerPath(), 2, QFileInfo(dir.path()).canonicalFilePath().toStdString()});
        QVERIFY(!call(server, "open_trace", {{"path", QString::fromStdString(inside)}})["isError"].toBool());
        const QString outside = QString::fromStdString(test::tracePath(test::traces::htaMi250));
        for (const auto& [tool, arguments] : std::vector<std::pair<std::string, QJsonObject>>{
                 {"open_trace", {{"path", outside}}},
                 {"open_trace", {{"path", dir.filePath("escape/hostname")}}},
                 {"open_trace", {{"path", dir.path() + "/../"}}},
                 {"memory_snapshot", {{"path", outside}}},
                 {"job", {{"paths", QJsonArray{outside}}}},
                 {"compare", {{"base", "t1"}, {"new", outside}}}}) {
            const QJsonObject result = call(server, tool, arguments);
            QVERIFY2(result["isError"].toBool(),
                     qPrintable(QString::fromStdString(tool) + ": " + text(result)));
            QVERIFY2(text(result).contains("outside the folder this server may read"),
                     qPrintable(text(result)));
        }
        Server open({defaultViewerPath(), 2, {}});
        const QJsonObject device = call(open, "open_trace", {{"path", "/dev/zero"}});
        QVERIFY(device["isError"].toBool());
        QVERIFY2(text(device).contains("not a regular file"), qPrintable(text(device)));
    }

    // Traces are cached by path and modification time: the same id, loaded again once the file changes.
    void cache() {
        QTemporaryDir dir;
        const std::string copy = dir.filePath("t.json.gz").toStdString();
        {
            std::ifstream in(test::tracePath(test::traces::htaMi250), std::ios::binary);
            std::ofstream out(copy, std::ios::binary);
            out << in.rdbuf();
        }
        TraceCache cache(2);
        std::string error;
        const auto a = cache.open(copy, error);
        QVERIFY(a);
        QCOMPARE(cache.open(copy, error).get(), a.get());
        QCOMPARE(cache.open("t1", error).get(), a.get());
        utimbuf times{1000000000, 1000000000};
        QCOMPARE(::utime(copy.c_str(), &times), 0);
        const auto b = cache.open(copy, error);
        QVERIFY(b && b.get() != a.get());
        QCOMPARE(b->id, std::string("t1"));
        QVERIFY(!cache.open("t7", error));
        QVERIFY(error.find("no trace has this id") != std::string::npos);
    }

    void httpParse_data() {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<int>("status"); // 0: parsed; -1: needs more
        QTest::addColumn<QByteArray>("body");
        QTest::newRow("post") << QByteArray(
                                     "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:1\r\nContent-Length: 2\r\n\r\n{}")
                              << 0 << QByteArray("{}");
        QTest::newRow("partial body")
            << QByteArray("POST /mcp HTTP/1.1\r\nContent-Length: 5\r\n\r\n{}") << -1 << QByteArray();
        QTest::newRow("partial head") << QByteArray("POST /mcp HTTP/1.1\r\nContent-Le") << -1 << QByteArray();
        QTest::newRow("chunked") << QByteArray("POST /mcp HTTP/1.1\r\nTransfer-Encoding: "
                                               "chunked\r\n\r\n2\r\n{\"\r\n1;x\r\n}\r\n0\r\n\r\n")
                                 << 0 << QByteArray("{\"}");
        QTest::newRow("bad chunk") << QByteArray(
                                          "POST /mcp HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n")
                                   << 400 << QByteArray();
        QTest::newRow("no length") << QByteArray("POST /mcp HTTP/1.1\r\nHost: x\r\n\r\n") << 411
                                   << QByteArray();
        QTest::newRow("bad length") << QByteArray("POST /mcp HTTP/1.1\r\nContent-Length: -1\r\n\r\n") << 400
                                    << QByteArray();
        QTest::newRow("huge") << QByteArray("POST /mcp HTTP/1.1\r\nContent-Length: 999999999999\r\n\r\n")
                              << 413 << QByteArray();
        QTest::newRow("get") << QByteArray("GET /mcp HTTP/1.1\r\nHost: x\r\n\r\n") << 0 << QByteArray();
        QTest::newRow("bad line") << QByteArray("GARBAGE\r\n\r\n") << 400 << QByteArray();
        QTest::newRow("http 2") << QByteArray("POST /mcp HTTP/2\r\n\r\n") << 400 << QByteArray();
        QTest::newRow("bad header") << QByteArray("GET / HTTP/1.1\r\nno colon\r\n\r\n") << 400
                                    << QByteArray();
        QTest::newRow("endless head") << QByteArray(70000, 'a') << 431 << QByteArray();
    }
    void httpParse() {
        QFETCH(QByteArray, bytes);
        QFETCH(int, status);
        QFETCH(QByteArray, body);
        const HttpParse p = parseHttpRequest(std::string_view(bytes.constData(), std::size_t(bytes.size())));
        if (status == 0) {
            QVERIFY2(p.request, p.error.c_str());
            QCOMPARE(QByteArray::fromStdString(p.request->body), body);
            QCOMPARE(p.consumed, std::size_t(bytes.size()));
        } else if (status == -1) {
            QVERIFY(!p.request);
            QCOMPARE(p.errorStatus, 0);
        } else {
            QVERIFY(!p.request);
            QCOMPARE(p.errorStatus, status);
        }
    }

    void httpAddress_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<bool>("ok");
        QTest::newRow("v4") << "127.0.0.1:8765" << true;
        QTest::newRow("any port") << "127.0.0.1:0" << true;
        QTest::newRow("v6") << "[::1]:9000" << true;
        QTest::newRow("localhost") << "localhost:9000" << true;
        QTest::newRow("all interfaces") << "0.0.0.0:8765" << false;
        QTest::newRow("lan") << "192.168.1.2:8765" << false;
        QTest::newRow("no port") << "127.0.0.1" << false;
        QTest::newRow("bad port") << "127.0.0.1:99999" << false;
    }
    void httpAddress() {
        QFETCH(QString, text);
        QFETCH(bool, ok);
        std::string error;
        QCOMPARE(parseHttpAddress(text.toStdString(), error).has_value(), ok);
        QCOMPARE(error.empty(), ok);
    }

    void links_data() {
        QTest::addColumn<QStringList>("files");
        QTest::addColumn<qint64>("from");
        QTest::addColumn<qint64>("to");
        QTest::addColumn<qint64>("select");
        QTest::newRow("plain") << QStringList{"/data/run/trace.json.gz"} << qint64(5) << qint64(900)
                               << qint64(17);
        QTest::newRow("spaces and signs")
            << QStringList{"/data/my runs/a&b=c #1%.json"} << qint64(-5) << qint64(0) << qint64(0);
        QTest::newRow("two files") << QStringList{"/a.json", "/b.json"} << qint64(1428625773991531)
                                   << qint64(1428625774043626) << qint64(-1);
        QTest::newRow("unicode") << QStringList{"/tmp/трасса.json"} << qint64(0) << qint64(1) << qint64(3);
    }
    void links() {
        QFETCH(QStringList, files);
        QFETCH(qint64, from);
        QFETCH(qint64, to);
        QFETCH(qint64, select);
        ViewLink link;
        for (const QString& f : files)
            link.files.push_back(f.toStdString());
        link.range = std::pair{from, to};
        if (select >= 0) link.select = select;
        const std::string url = viewLinkUrl(link);
        QVERIFY(url.starts_with("kinetoscope://open?file=/"));
        QVERIFY(url.find(' ') == std::string::npos && url.find('#') == std::string::npos);
        std::string error;
        const auto back = parseViewLink(url, error);
        QVERIFY2(back, error.c_str());
        QCOMPARE(back->files, link.files);
        QCOMPARE(back->range, link.range);
        QCOMPARE(back->select, link.select);
    }

    void badLinks_data() {
        QTest::addColumn<QString>("url");
        QTest::addColumn<QString>("says");
        QTest::newRow("other scheme") << "https://x/open?file=/a"
                                      << "not a kinetoscope link";
        QTest::newRow("no file") << "kinetoscope://open?range=1:2"
                                 << "names no file";
        QTest::newRow("backwards range") << "kinetoscope://open?file=/a&range=5:2"
                                         << "range:";
        QTest::newRow("range text") << "kinetoscope://open?file=/a&range=x"
                                    << "range:";
        QTest::newRow("bad select") << "kinetoscope://open?file=/a&select=1x"
                                    << "select:";
        QTest::newRow("bad escape") << "kinetoscope://open?file=/a%zz"
                                    << "bad %-escape";
        QTest::newRow("cut escape") << "kinetoscope://open?file=/a%4"
                                    << "bad %-escape";
    }
    void badLinks() {
        QFETCH(QString, url);
        QFETCH(QString, says);
        std::string error;
        QVERIFY(!parseViewLink(url.toStdString(), error));
        QVERIFY2(QString::fromStdString(error).contains(says), error.c_str());
    }
};

QTEST_GUILESS_MAIN(TestMcp)
#include "tst_mcp.moc"
