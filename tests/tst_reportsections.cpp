// The report by sections (core/analysis/report/reportsections.h): each section asked for alone writes the
// header and exactly its own members, each equal to the full report's, on real traces (an eager training
// step, a compiled model, an inference run with memory events); `summary --json --by kernel` and `--sections`
// as a user types them, and a bad section named plainly.
#include "analysis/ops/steps.h"
#include "analysis/report/analysisresult.h"
#include "analysis/report/summaryformat.h"
#include "testsupport.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSet>
#include <QTest>

using namespace kinetoscope;

class TestReportSections : public QObject {
    Q_OBJECT
  private slots:
    void eachSectionAlone_data();
    void eachSectionAlone();
    void parse();
    void cli();
};

namespace {
QJsonObject reportJson(const TraceStore& store, ReportSections sections) {
    const auto report =
        computeAnalysis(store, std::nullopt, OperatorGrouping::Name, KernelGrouping::Name, sections);
    if (has(sections, ReportSection::CriticalPath)) {
        std::string error;
        report->criticalPath = stepCriticalPath(store, std::nullopt, error);
    }
    return QJsonDocument::fromJson(QByteArray::fromStdString(summaryToJson(report->summary, report.get())))
        .object();
}
} // namespace

void TestReportSections::eachSectionAlone_data() {
    QTest::addColumn<QString>("trace");
    QTest::newRow("resnet18 training") << test::traces::resnet18Mi300;
    QTest::newRow("compiled") << test::traces::torchCompileMi300;
    QTest::newRow("qwen inference") << test::traces::qwenH100;
}

void TestReportSections::eachSectionAlone() {
    QFETCH(QString, trace);
    LoadResult r = loadTrace(test::tracePath(trace.toStdString().c_str()));
    QVERIFY2(r.ok(), r.error.c_str());
    const QJsonObject full = reportJson(*r.store, allReportSections());
    QSet<QString> everyKey;
    for (std::size_t s = 0; s < reportSectionCount; ++s) {
        ReportSections one;
        one.set(s);
        const QJsonObject part = reportJson(*r.store, one);
        QSet<QString> expected{QStringLiteral("events"), QStringLiteral("run"),
                               QStringLiteral("gpu_busy_us")};
        for (std::string_view key : reportSectionKeys(ReportSection(s)))
            if (full.contains(QString::fromLatin1(key.data(), qsizetype(key.size()))))
                expected.insert(QString::fromLatin1(key.data(), qsizetype(key.size())));
        QSet<QString> got;
        for (const QString& key : part.keys())
            got.insert(key);
        QCOMPARE(got, expected);
        for (const QString& key : got) {
            QVERIFY2(part[key] == full[key],
                     qPrintable(QString::fromLatin1(reportSectionName(ReportSection(s)).data()) +
                                QStringLiteral(": ") + key));
            everyKey.insert(key);
        }
    }
    // Every member of the full report belongs to a section (or the header).
    for (const QString& key : full.keys())
        QVERIFY2(everyKey.contains(key), qPrintable(key));
}

void TestReportSections::parse() {
    std::string error;
    const auto two = parseReportSections("kernels,roofline", error);
    QVERIFY(two);
    QVERIFY(has(*two, ReportSection::Kernels) && has(*two, ReportSection::Roofline));
    QCOMPARE(two->count(), std::size_t(2));
    QVERIFY(!parseReportSections("kernels,gpu", error));
    QVERIFY2(error.starts_with("unknown section 'gpu' (one of: overview, ops, kernels,"), error.c_str());
    QVERIFY(!parseReportSections("", error));
}

void TestReportSections::cli() {
    const QString trace = QString::fromStdString(test::tracePath(test::traces::torchCompileMi300));
    const auto run = [&](const QStringList& args, int& code) {
        QProcess p;
        p.start(QStringLiteral(KINETOSCOPE_CLI), QStringList{QStringLiteral("summary"), trace} + args);
        p.waitForFinished(60000);
        code = p.exitCode();
        return std::make_pair(p.readAllStandardOutput(), p.readAllStandardError());
    };
    int code = -1;
    const auto [byKernel, e1] =
        run({QStringLiteral("--json"), QStringLiteral("--by"), QStringLiteral("kernel")}, code);
    QCOMPARE(code, 0);
    const QJsonObject kernels = QJsonDocument::fromJson(byKernel).object();
    QVERIFY(kernels.contains(QStringLiteral("kernels")) &&
            kernels.contains(QStringLiteral("kernel_categories_us")));
    QVERIFY(!kernels.contains(QStringLiteral("operators")) &&
            !kernels.contains(QStringLiteral("perf_model")));
    const auto [two, e2] = run(
        {QStringLiteral("--json"), QStringLiteral("--sections"), QStringLiteral("inductor,roofline")}, code);
    QCOMPARE(code, 0);
    const QJsonObject o = QJsonDocument::fromJson(two).object();
    QVERIFY(o.contains(QStringLiteral("inductor")) && o.contains(QStringLiteral("perf_model")));
    QVERIFY(!o.contains(QStringLiteral("kernels")) && !o.contains(QStringLiteral("steps")));
    // The text likewise: the run header and the table asked for, nothing else computed or printed.
    const auto [text, e4] = run({QStringLiteral("--by"), QStringLiteral("kernel")}, code);
    QCOMPARE(code, 0);
    QVERIFY(text.startsWith("Run\n") && text.contains("Kernels (8 of 8)"));
    for (const char* absent :
         {"Steps:", "Recommendations", "Operators (", "Roofline", "TorchInductor breakdown", "Critical path"})
        QVERIFY2(!text.contains(absent), absent);
    const auto [compiled, e5] =
        run({QStringLiteral("--sections"), QStringLiteral("inductor,recommendations")}, code);
    QCOMPARE(code, 0);
    QVERIFY(compiled.contains("TorchInductor breakdown (trace)") && compiled.contains("[max_autotune]"));
    QVERIFY(!compiled.contains("Kernels (") && !compiled.contains("Operators ("));
    const auto [bad, e3] =
        run({QStringLiteral("--json"), QStringLiteral("--sections"), QStringLiteral("gpu")}, code);
    QCOMPARE(code, 2);
    QVERIFY2(e3.contains("summary: --sections: unknown section 'gpu'"), e3.constData());
}

QTEST_GUILESS_MAIN(TestReportSections)
#include "tst_reportsections.moc"
