// `kinetoscope-cli check` (core/analysis/report/regressioncheck.h, issue 64) on real pairs: a trace against
// itself and against another of its own steps passes; HTA's trace_diff control and test fails, naming what
// differs; planted regressions (a kernel made 20 % slower, a collective made to wait) are found and named;
// the spread of several runs a side keeps noise from failing; budgets, outputs and exit codes.
#include "analysis/report/checkformat.h"
#include "model/viewlink.h"
#include "open/trimtrace.h"
#include "testsupport.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <fstream>

using namespace kinetoscope;

namespace {

constexpr const char* htaControl =
    "facebookresearch__HolisticTraceAnalysis/tests__data__trace_diff__control__control.json.gz";
constexpr const char* htaTest =
    "facebookresearch__HolisticTraceAnalysis/tests__data__trace_diff__test__test.json.gz";

RunFigures figures(const std::string& path) {
    LoadResult r = loadTrace(path);
    if (!r.ok()) qFatal("%s", r.message(path).c_str());
    const auto report = computeAnalysis(*r.store, std::nullopt, OperatorGrouping::Name, KernelGrouping::Name);
    return runFigures(*r.store, *report, path);
}

CheckReport check(const std::vector<std::string>& base, const std::vector<std::string>& changed,
                  const Budget& budget = {}) {
    std::vector<RunFigures> a, b;
    for (const std::string& p : base)
        a.push_back(figures(p));
    for (const std::string& p : changed)
        b.push_back(figures(p));
    return checkRuns(a, b, budget);
}

bool names(const CheckReport& r, const std::string& metric, const std::string& namePart = {}) {
    return std::any_of(r.regressions.begin(), r.regressions.end(), [&](const Finding& f) {
        return f.metric == metric && f.name.find(namePart) != std::string::npos;
    });
}

// A copy of a real trace with `change` applied to each event (a JSON object), written as plain JSON.
template <typename Change> std::string plant(const std::string& from, const std::string& to, Change change) {
    QJsonObject doc = QJsonDocument::fromJson(QByteArray::fromStdString(test::readText(from))).object();
    QJsonArray events = doc["traceEvents"].toArray();
    for (qsizetype i = 0; i < events.size(); ++i) {
        QJsonObject e = events[i].toObject();
        if (change(e)) events[i] = e;
    }
    doc["traceEvents"] = events;
    std::ofstream(to) << QJsonDocument(doc).toJson(QJsonDocument::Compact).toStdString();
    return to;
}

// Steps first..last of a trace, trimmed into a trace of their own (a hair inside, so that the neighbours,
// which touch them, stay out).
std::string stepsOf(const std::string& trace, int first, int last, const std::string& out) {
    LoadResult r = loadTrace(trace);
    const auto report = computeAnalysis(*r.store, std::nullopt, OperatorGrouping::Name, KernelGrouping::Name,
                                        ReportSections().set(std::size_t(ReportSection::Overview)));
    const auto& steps = report->overview.steps;
    const TimeNs from = steps.at(std::size_t(first)).start + 1000,
                 to = steps.at(std::size_t(last)).end - 1000;
    const TrimResult t = trimTrace(trace, out, {from, to, {}, nullptr});
    if (!t.ok()) qFatal("%s", t.error.c_str());
    return out;
}

} // namespace

class TestRegressionCheck : public QObject {
    Q_OBJECT

  private slots:
    void traceAgainstItselfPasses_data() {
        QTest::addColumn<QString>("trace");
        for (const char* t :
             {test::traces::qwenH100, test::traces::b200Eager, htaControl, test::traces::resnet2020})
            QTest::newRow(t) << QString(t);
    }
    void traceAgainstItselfPasses() {
        QFETCH(QString, trace);
        const std::string path = test::tracePath(trace.toUtf8().constData());
        const CheckReport r = check({path}, {path});
        QVERIFY2(r.passed(), checkToText(r).c_str());
        QVERIFY(r.improvements.empty());
        QVERIFY(r.kernelsJudged + r.operatorsJudged > 0);
    }

    // A run's first three steps against its last three, each trimmed into a trace of its own: the same work,
    // a verdict of pass (each side's step-to-step noise counted).
    void otherStepsPass() {
        QTemporaryDir dir;
        const std::string trace = test::tracePath(test::traces::resnet2020);
        const std::string a = stepsOf(trace, 0, 2, dir.filePath("a.json").toStdString());
        const std::string b = stepsOf(trace, 3, 5, dir.filePath("b.json").toStdString());
        const CheckReport r = check({a}, {b});
        QVERIFY2(r.passed(), checkToText(r).c_str());
        QVERIFY(r.kernelsJudged > 10);
        QVERIFY(r.baseStep != r.newStep); // two different sets of steps, not one twice
    }

    // HTA's trace_diff pair: the test run is slower, and the check says where.
    void htaTraceDiff() {
        const CheckReport r = check({test::tracePath(htaControl)}, {test::tracePath(htaTest)});
        QVERIFY(!r.passed());
        QVERIFY(names(r, "step_time"));
        QCOMPARE(r.regressions.front().metric, std::string("step_time")); // the whole step first
        QVERIFY(names(r, "kernel", "volta_sgemm"));
        QVERIFY(names(r, "operator", "aten::copy_"));
        // Each with where it shows in the new run, and the kernel's link names its longest launch.
        for (const Finding& f : r.regressions) {
            std::string error;
            const auto link = parseViewLink(f.link, error);
            QVERIFY2(link, error.c_str());
            QCOMPARE(link->files.front(), test::tracePath(htaTest));
            if (f.metric == "kernel") QVERIFY(link->select);
        }
    }

    // Planted: one kernel 20 % slower is named, and nothing else of the GPU's; the step does not move (the
    // kernels' starts were left as they were).
    void plantedSlowKernel() {
        QTemporaryDir dir;
        const std::string base = test::tracePath(test::traces::qwenH100);
        LoadResult r = loadTrace(base);
        const auto report =
            computeAnalysis(*r.store, std::nullopt, OperatorGrouping::Name, KernelGrouping::Name);
        const std::string slow = report->summary.kernels.front().name; // the largest
        const std::string changed = plant(base, dir.filePath("slow.json").toStdString(), [&](QJsonObject& e) {
            if (e["cat"].toString() != "kernel" || e["name"].toString().toStdString() != slow) return false;
            e["dur"] = e["dur"].toDouble() * 1.2;
            return true;
        });
        const CheckReport c = check({base}, {changed});
        QVERIFY(!c.passed());
        QVERIFY2(names(c, "kernel", slow), checkToText(c).c_str());
        for (const Finding& f : c.regressions)
            if (f.metric == "kernel") QCOMPARE(f.name, slow);
        const auto it = std::find_if(c.regressions.begin(), c.regressions.end(),
                                     [&](const Finding& f) { return f.metric == "kernel"; });
        QVERIFY(std::fabs(it->relativeChange() - 0.2) < 0.01);
    }

    // Planted: a collective made to wait 5 ms longer: exposed communication is named.
    void plantedWaitingCollective() {
        QTemporaryDir dir;
        const std::string base = test::tracePath(test::traces::b200Eager);
        const std::string changed = plant(base, dir.filePath("wait.json").toStdString(), [](QJsonObject& e) {
            if (e["cat"].toString() != "kernel" || !e["name"].toString().startsWith("nccl")) return false;
            e["dur"] = e["dur"].toDouble() + 5000;
            return true;
        });
        const CheckReport c = check({base}, {changed});
        // Named by the collective that waited, its link on that collective's longest launch.
        QVERIFY2(names(c, "exposed_communication", "nccl"), checkToText(c).c_str());
        std::string error;
        const auto exposed = std::find_if(c.regressions.begin(), c.regressions.end(), [](const Finding& f) {
            return f.metric == "exposed_communication";
        });
        QVERIFY(parseViewLink(exposed->link, error)->select);
    }

    // Several runs a side: a change inside the runs' own spread is noise, not a regression; the same change
    // with steady runs is one.
    void spreadKeepsNoiseOut() {
        QTemporaryDir dir;
        const std::string base = test::tracePath(test::traces::qwenH100);
        LoadResult r = loadTrace(base);
        const auto report =
            computeAnalysis(*r.store, std::nullopt, OperatorGrouping::Name, KernelGrouping::Name);
        const std::string kernel = report->summary.kernels.front().name;
        const auto scaled = [&](double factor, const char* name) {
            return plant(base, dir.filePath(name).toStdString(), [&](QJsonObject& e) {
                if (e["cat"].toString() != "kernel" || e["name"].toString().toStdString() != kernel)
                    return false;
                e["dur"] = e["dur"].toDouble() * factor;
                return true;
            });
        };
        const std::string plus15 = scaled(1.15, "p15.json"), plus30 = scaled(1.30, "p30.json"),
                          plus16 = scaled(1.16, "p16.json");
        // Base runs 0 % and +30 % (median +15 %), new runs +15 % and +16 %: within the spread.
        const CheckReport noisy = check({base, plus30}, {plus15, plus16});
        QVERIFY2(!names(noisy, "kernel", kernel), checkToText(noisy).c_str());
        // Steady base runs: the same new runs are a regression.
        const CheckReport steady = check({base, base}, {plus15, plus16});
        QVERIFY2(names(steady, "kernel", kernel), checkToText(steady).c_str());
    }

    void budgets_data() {
        QTest::addColumn<QString>("json");
        QTest::addColumn<bool>("ok");
        QTest::addColumn<double>("kernelRelative");
        QTest::newRow("empty") << "{}" << true << 0.10;
        QTest::newRow("kernel") << R"({"kernel": {"relative": 0.3, "absolute_us": 5}})" << true << 0.3;
        QTest::newRow("memory") << R"({"memory_peak": {"absolute_mib": 16}, "min_share": 0.05})" << true
                                << 0.10;
        QTest::newRow("unknown member") << R"({"kernels": {}})" << false << 0.0;
        QTest::newRow("memory in us") << R"({"memory_peak": {"absolute_us": 5}})" << false << 0.0;
        QTest::newRow("negative") << R"({"kernel": {"relative": -1}})" << false << 0.0;
        QTest::newRow("share of 2") << R"({"min_share": 2})" << false << 0.0;
        QTest::newRow("not JSON") << "relative = 0.1" << false << 0.0;
    }
    void budgets() {
        QFETCH(QString, json);
        QFETCH(bool, ok);
        QFETCH(double, kernelRelative);
        std::string error;
        const auto budget = parseBudget(json.toStdString(), error);
        QCOMPARE(budget.has_value(), ok);
        QCOMPARE(error.empty(), ok);
        if (ok) QCOMPARE(budget->kernel.relative, kernelRelative);
    }

    // A budget can make the HTA pair pass (thresholds of 10x), the tool's exit codes, and its three outputs.
    void cli() {
        const QString cliPath = QStringLiteral(KINETOSCOPE_CLI);
        const QString control = QString::fromStdString(test::tracePath(htaControl));
        const QString changed = QString::fromStdString(test::tracePath(htaTest));
        const auto run = [&](const QStringList& args, QByteArray& out) {
            QProcess p;
            p.start(cliPath, QStringList{"check"} + args);
            p.waitForFinished(300000);
            out = p.readAllStandardOutput();
            return p.exitCode();
        };
        QByteArray out;
        QCOMPARE(run({control, control}, out), 0);
        QVERIFY(out.contains("PASS"));
        QCOMPARE(run({control, changed, "--json"}, out), 1);
        const QJsonObject json = QJsonDocument::fromJson(out).object();
        QCOMPARE(json["verdict"].toString(), QString("regression"));
        QCOMPARE(json["regressions"].toArray().first().toObject()["metric"].toString(), QString("step_time"));
        QCOMPARE(run({control, changed, "--markdown"}, out), 1);
        QVERIFY(out.startsWith("### Kinetoscope check: regression"));
        QVERIFY(out.contains("| step time |"));
        QCOMPARE(run({control, "/nonexistent.json"}, out), 2);
        QTemporaryDir dir;
        const QString budget = dir.filePath("budget.json");
        std::ofstream(budget.toStdString())
            << R"({"step_time": {"relative": 10}, "kernel": {"absolute_us": 1e9}, "operator": {"absolute_us": 1e9},
                  "gpu_idle": {"relative": 10}, "exposed_communication": {"relative": 10},
                  "memory_peak": {"relative": 10}})";
        QCOMPARE(run({control, changed, "--budget", budget}, out), 0);
        std::ofstream(budget.toStdString()) << "{\"step\": 1}";
        QCOMPARE(run({control, changed, "--budget", budget}, out), 2);
        // Folders of runs: each side's traces, their medians.
        QVERIFY(QDir(dir.path()).mkdir("base") && QDir(dir.path()).mkdir("new"));
        QVERIFY(QFile::copy(control, dir.filePath("base/a.json.gz")));
        QVERIFY(QFile::copy(changed, dir.filePath("new/b.json.gz")));
        QCOMPARE(run({dir.filePath("base"), dir.filePath("new")}, out), 1);
        QCOMPARE(run({dir.filePath("base"), dir.filePath("base")}, out), 0);
    }
};

QTEST_GUILESS_MAIN(TestRegressionCheck)
#include "tst_regressioncheck.moc"
