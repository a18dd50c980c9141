// The one row writer (core/analysis/report/rows.h): each cell format as JSON and as text, members left out
// when empty, row limits, the text table's alignment and elision, and the summary's text tables on real
// traces against golden files (the JSON sections are checked by the other suites' goldens).
#include "analysis/report/rows.h"
#include "analysis/report/sections.h"
#include "analysis/report/summaryformat.h"
#include "testsupport.h"

#include <QTest>

using namespace kinetoscope;

Q_DECLARE_METATYPE(kinetoscope::CellFormat)

class TestRows : public QObject {
    Q_OBJECT
  private slots:
    void elidedTextsThatDifferReadDifferently_data();
    void elidedTextsThatDifferReadDifferently();
    void cellFormats_data();
    void cellFormats();
    void rowsAsJson();
    void rowsAsText();
    void rowsAsFixedText();
    void eachColumnHasItsKeyAndTitle();
    void goldenSummaryText_data();
    void goldenSummaryText();
};

namespace {
std::string json(CellFormat format, int decimals, const Cell& cell) {
    std::string out;
    JsonWriter w(out);
    writeCell(w, format, decimals, cell);
    return out;
}

struct Sample {
    std::string name;
    std::uint64_t calls = 0;
    TimeNs time = 0;
    std::optional<double> share;
};

Columns<Sample> sampleColumns() {
    return {
        {.key = "name",
         .title = "Name",
         .value = [](const Sample& s) { return Cell::of(s.name); },
         .omitWhenEmpty = true,
         .textWidth = 8},
        {.key = "calls",
         .title = "Calls",
         .format = CellFormat::Count,
         .value = [](const Sample& s) { return Cell::of(s.calls); }},
        {.key = "time_us",
         .title = "Time",
         .format = CellFormat::Micros,
         .value = [](const Sample& s) { return Cell::of(s.time); }},
        {.key = "share",
         .title = "Share",
         .format = CellFormat::Share,
         .value = [](const Sample& s) { return s.share ? Cell::of(*s.share) : Cell::null(); },
         .outputs = InJson | InTable,
         .decimals = 3},
    };
}
} // namespace

void TestRows::cellFormats_data() {
    QTest::addColumn<CellFormat>("format");
    QTest::addColumn<int>("decimals");
    QTest::addColumn<int>("kind"); // 0 null, 1 text, 2 unsigned, 3 signed, 4 real, 5 bool
    QTest::addColumn<QString>("value");
    QTest::addColumn<QString>("expectedJson");
    QTest::addColumn<QString>("expectedText");
    using F = CellFormat;
    QTest::newRow("text escaped") << F::Text << 0 << 1 << "a\"b"
                                  << "\"a\\\"b\""
                                  << "a\"b";
    QTest::newRow("json as it is") << F::Json << 0 << 1 << "[[2, 3], []]"
                                   << "[[2, 3], []]"
                                   << "[[2, 3], []]";
    QTest::newRow("count") << F::Count << 0 << 2 << "18446744073709551615"
                           << "18446744073709551615"
                           << "18446744073709551615";
    QTest::newRow("integer negative") << F::Integer << 0 << 3 << "-7"
                                      << "-7"
                                      << "-7";
    QTest::newRow("micros") << F::Micros << 0 << 3 << "1234567"
                            << "1234.567"
                            << "1234.567";
    QTest::newRow("micros negative") << F::Micros << 0 << 3 << "-1500"
                                     << "-1.500"
                                     << "-1.500";
    QTest::newRow("fixed") << F::Fixed << 3 << 4 << "2.5"
                           << "2.500"
                           << "2.500";
    QTest::newRow("fixed NaN: null, empty text") << F::Fixed << 3 << 4 << "nan"
                                                 << "null"
                                                 << "";
    QTest::newRow("share") << F::Share << 6 << 4 << "0.25"
                           << "0.250000"
                           << "25.000000%";
    QTest::newRow("percent") << F::Percent << 1 << 4 << "62.25"
                             << "62.2"
                             << "62.2%";
    QTest::newRow("general") << F::General << 1 << 4 << "0.000123456789"
                             << "0.000123457"
                             << "0.0";
    QTest::newRow("exact") << F::Exact << 3 << 4 << "0.1"
                           << "0.1"
                           << "0.100";
    QTest::newRow("bool true") << F::Bool << 0 << 5 << "1"
                               << "true"
                               << "yes";
    QTest::newRow("bool false") << F::Bool << 0 << 5 << "0"
                                << "false"
                                << "";
    QTest::newRow("null") << F::Micros << 0 << 0 << ""
                          << "null"
                          << "";
}

void TestRows::cellFormats() {
    QFETCH(CellFormat, format);
    QFETCH(int, decimals);
    QFETCH(int, kind);
    QFETCH(QString, value);
    QFETCH(QString, expectedJson);
    QFETCH(QString, expectedText);
    const std::string v = value.toStdString();
    Cell cell;
    switch (kind) {
    case 1:
        cell = Cell::of(std::string_view(v));
        break;
    case 2:
        cell = Cell::of(std::uint64_t(std::stoull(v)));
        break;
    case 3:
        cell = Cell::of(std::int64_t(std::stoll(v)));
        break;
    case 4:
        cell = Cell::of(std::stod(v));
        break;
    case 5:
        cell = Cell::of(v == "1");
        break;
    default:
        break;
    }
    QCOMPARE(QString::fromStdString(json(format, decimals, cell)), expectedJson);
    QCOMPARE(QString::fromStdString(cellText(format, decimals, cell)), expectedText);
}

void TestRows::rowsAsJson() {
    const std::vector<Sample> rows = {
        {"matmul", 3, 1500, 0.5}, {"", 1, 0, std::nullopt}, {"relu", 2, 7, 0.1}};
    std::string out;
    JsonWriter w(out);
    writeRows(w, sampleColumns(), rows, {"\n  ", ",\n  ", "\n"});
    QCOMPARE(
        QString::fromStdString(out),
        QStringLiteral("[\n  {\"name\": \"matmul\", \"calls\": 3, \"time_us\": 1.500, \"share\": 0.500},\n"
                       "  {\"calls\": 1, \"time_us\": 0.000, \"share\": null},\n"
                       "  {\"name\": \"relu\", \"calls\": 2, \"time_us\": 0.007, \"share\": 0.100}\n]"));
    // A limit writes the first rows only; no rows, an empty array.
    out.clear();
    JsonWriter limited(out);
    writeRows(limited, sampleColumns(), rows, {}, 1);
    QCOMPARE(QString::fromStdString(out),
             QStringLiteral("[{\"name\": \"matmul\", \"calls\": 3, \"time_us\": 1.500, \"share\": 0.500}]"));
    out.clear();
    JsonWriter empty(out);
    writeRows(empty, sampleColumns(), std::vector<Sample>{}, {"\n  ", ",\n  ", "\n"});
    QCOMPARE(QString::fromStdString(out), QStringLiteral("[]"));
}

void TestRows::rowsAsText() {
    // Text left-aligned, numbers right-aligned, times titled in microseconds, a column not meant for text
    // left out, a long name elided on a UTF-8 boundary ("é" is two bytes: the cut does not split it).
    const std::vector<Sample> rows = {{"conv", 12, 2500000, 0.5}, {"softéxyz_backward", 1, 40, 0.1}};
    QCOMPARE(QString::fromStdString(rowsText(sampleColumns(), rows)),
             QStringLiteral("Name     Calls   Time us\n"
                            "------------------------\n"
                            "conv        12  2500.000\n"
                            "soft...      1     0.040\n"));
    QCOMPARE(QString::fromStdString(rowsText(sampleColumns(), rows, 1)),
             QStringLiteral("Name  Calls   Time us\n"
                            "---------------------\n"
                            "conv     12  2500.000\n"));
}

// Columns that give field widths make a fixed-width table: printf's widths, one space apart, no rule.
void TestRows::rowsAsFixedText() {
    Columns<Sample> columns = sampleColumns();
    columns[0].fieldWidth = -10;
    columns[1].fieldWidth = 6;
    columns[2].fieldWidth = 9;
    const std::vector<Sample> rows = {{"conv", 12, 2500000, 0.5}, {"softmax_backward", 1, 40, 0.1}};
    QCOMPARE(QString::fromStdString(rowsText(columns, rows)),
             QStringLiteral("Name        Calls   Time us\n"
                            "conv           12  2500.000\n"
                            "softm...        1     0.040\n"));
}

// Every column a report writes has a JSON key unique in its table and a title; every column the viewer
// shows has a title unique among the viewer's columns (the tables pick theirs by title).
void TestRows::eachColumnHasItsKeyAndTitle() {
    auto check = [](const auto& columns, const char* table) {
        QSet<QString> keys, tableTitles;
        for (const auto& c : columns) {
            // (a text-only column may be a blank one in a fixed-width table)
            if (c.outputs != InText) QVERIFY2(!c.title.empty(), table);
            QVERIFY2(bool(c.value), table);
            if (c.outputs & InJson) {
                QVERIFY2(!c.key.empty(), table);
                const QString key = QString::fromUtf8(c.key.data(), qsizetype(c.key.size()));
                QVERIFY2(!keys.contains(key), qPrintable(QString::fromLatin1(table) + ": " + key));
                keys.insert(key);
            }
            if (c.outputs & InTable) {
                const QString title = QString::fromUtf8(c.title.data(), qsizetype(c.title.size()));
                QVERIFY2(!tableTitles.contains(title), qPrintable(QString::fromLatin1(table) + ": " + title));
                tableTitles.insert(title);
            }
        }
    };
    const SelfTimeTotals totals;
    check(operatorColumns(true, &totals), "operators");
    check(kernelColumns(), "kernels");
    check(kernelTableColumns(), "kernel table");
    check(stepColumns(), "steps");
    check(recommendationColumns(), "recommendations");
    check(gpuIdleColumns(), "gpu idle");
    check(temporalBreakdownColumns(), "temporal breakdown");
    check(gpuQueueColumns(), "gpu queue");
    check(kernelSequenceColumns(), "kernel sequences");
    check(pathEventColumns(), "path events");
    check(pathEdgeColumns(), "path edges");
    check(perfModelColumns(), "perf model");
    check(notModelledColumns(), "not modelled");
    check(rankStepColumns(), "rank steps");
    check(collectiveColumns(), "collectives");
    check(jobRankColumns(), "job ranks");
    check(diffColumns(true), "operator diff");
    check(diffColumns(false), "kernel diff");
}

void TestRows::goldenSummaryText_data() {
    QTest::addColumn<QString>("trace");
    QTest::addColumn<bool>("byShape");
    QTest::addColumn<QString>("sort");
    QTest::newRow("torch_compile_triton")
        << "AMD-AGI__TraceLens/tests__traces__torch_compile_triton__trace.json.gz" << false << QString();
    QTest::newRow("ddp_resnet18_by_shape_host_self")
        << "AMD-AGI__TraceLens/tests__traces__mi300__ddp_resnet18_no_pool__train_resnet18.json.gz" << true
        << QStringLiteral("host_self");
}

// The operator, annotation and kernel tables of `kinetoscope-cli summary`, byte for byte.
void TestRows::goldenSummaryText() {
    QFETCH(QString, trace);
    QFETCH(bool, byShape);
    QFETCH(QString, sort);
    LoadResult r = loadTrace(test::tracePath(trace.toUtf8().constData()));
    QVERIFY2(r.ok(), r.error.c_str());
    const Summary summary =
        summarize(*r.store, byShape ? OperatorGrouping::NameAndShape : OperatorGrouping::Name);
    SummaryTextOptions options;
    options.sortField = sort.toStdString();
    options.top = 15;
    std::string error;
    const std::optional<std::string> text = summaryToText(summary, options, error);
    QVERIFY2(text, error.c_str());
    const QString name = QString::fromLatin1(QTest::currentDataTag()) + QStringLiteral(".summary.txt");
    const QString diff = test::compareGolden(name, *text);
    QVERIFY2(diff.isEmpty(), qPrintable(diff));
}

// Issue 61: the text tables printed rows that differ alike
// ("split_embedding_backward_codegen_rowwise_adagrad_ unweig..." three times in HTA's trace_diff): names
// alike for their first bytes show where they differ.
void TestRows::elidedTextsThatDifferReadDifferently_data() {
    QTest::addColumn<QStringList>("texts");
    QTest::addColumn<int>("width");
    const QString stem =
        QStringLiteral("split_embedding_backward_codegen_rowwise_adagrad_unweighted_kernel_");
    QTest::newRow("differ past the cut") << QStringList{stem + QStringLiteral("cta_per_row_1<float, 5ul>"),
                                                        stem + QStringLiteral("cta_per_row_1<float, 2ul>"),
                                                        stem + QStringLiteral("warp_per_row_1<float, 5ul>")}
                                         << 58;
    QTest::newRow("differ at the very end")
        << QStringList{stem + stem + QStringLiteral("a"), stem + stem + QStringLiteral("b")} << 40;
    QTest::newRow("short ones untouched")
        << QStringList{QStringLiteral("aten::mm"), QStringLiteral("aten::bmm")} << 20;
}

void TestRows::elidedTextsThatDifferReadDifferently() {
    QFETCH(QStringList, texts);
    QFETCH(int, width);
    std::vector<std::string> in;
    for (const QString& t : texts)
        in.push_back(t.toStdString());
    in.push_back(in.front()); // an equal text reads the same
    const std::vector<std::string> out = elideDistinct(in, std::size_t(width));
    QCOMPARE(out.size(), in.size());
    QCOMPARE(out.back(), out.front());
    for (std::size_t i = 0; i + 1 < out.size(); ++i) {
        QVERIFY2(out[i].size() <= std::size_t(width) + 3,
                 out[i].c_str()); // at most the width and an ellipsis
        if (in[i].size() <= std::size_t(width)) QCOMPARE(out[i], in[i]);
        for (std::size_t j = i + 1; j + 1 < out.size(); ++j)
            QVERIFY2(out[i] != out[j], out[i].c_str());
    }
}

QTEST_GUILESS_MAIN(TestRows)
#include "tst_rows.moc"
