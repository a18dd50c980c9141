// A distributed job from its ranks: the rank file (one writer and reader for it, the summary's "distributed"
// block and the viewer), files recognised by content and unreadable ones skipped, the job report's steps,
// stragglers and their victims, collectives and problems, on the real rank traces of the corpus and on
// 1,000 ranks made from one with planted stragglers; and the `rank` / `job` commands.
#include "analysis/jobs/collectivecalls.h"
#include "analysis/jobs/job.h"
#include "analysis/report/jobformat.h"
#include "analysis/report/summaryformat.h"
#include "open/rankinput.h"
#include "testsupport.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <set>

using namespace kinetoscope;

namespace {
const char* const sampledRank0 =
    "facebookresearch__HolisticTraceAnalysis/tests__data__trace_filter__sampled_rank-0.json.gz";
const char* const sampledRank1 =
    "facebookresearch__HolisticTraceAnalysis/tests__data__trace_filter__sampled_rank-1.json.gz";

void writeFile(const QString& path, const std::string& text) {
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(text.data(), qint64(text.size()));
}

RankFigures figuresOf(const char* trace) {
    LoadResult r = loadTrace(test::tracePath(trace));
    if (!r.ok()) qFatal("%s", r.message(trace).c_str());
    return rankFigures(*r.store);
}

void compareFigures(const RankFigures& a, const RankFigures& b) {
    QCOMPARE(a.rank, b.rank);
    QCOMPARE(a.worldSize, b.worldSize);
    QCOMPARE(a.source, b.source);
    QCOMPARE(a.host, b.host);
    QCOMPARE(a.stepMean, b.stepMean);
    QCOMPARE(a.steps.size(), b.steps.size());
    for (std::size_t i = 0; i < a.steps.size(); ++i) {
        QCOMPARE(a.steps[i].name, b.steps[i].name);
        QCOMPARE(a.steps[i].start, b.steps[i].start);
        QCOMPARE(a.steps[i].computation, b.steps[i].computation);
        QCOMPARE(a.steps[i].communication, b.steps[i].communication);
        QCOMPARE(a.steps[i].overlap, b.steps[i].overlap);
        QCOMPARE(a.steps[i].other, b.steps[i].other);
        QCOMPARE(a.steps[i].hostRanges, b.steps[i].hostRanges);
    }
    QCOMPARE(a.collectives.size(), b.collectives.size());
    for (std::size_t i = 0; i < a.collectives.size(); ++i) {
        QCOMPARE(a.collectives[i].name, b.collectives[i].name);
        QCOMPARE(a.collectives[i].messageBytes, b.collectives[i].messageBytes);
        QCOMPARE(a.collectives[i].group, b.collectives[i].group);
        QCOMPARE(a.collectives[i].calls, b.collectives[i].calls);
        QCOMPARE(a.collectives[i].total, b.collectives[i].total);
        QCOMPARE(a.collectives[i].longest, b.collectives[i].longest);
    }
}
} // namespace

class TestJob : public QObject {
    Q_OBJECT
  private slots:
    void hostFromFileName_data();
    void hostFromFileName();
    void rankFileRoundTrip_data();
    void rankFileRoundTrip();
    void rankFileStaysUnderItsBudget();
    void rankFileOfHundredsOfStepsAndCollectives();
    void hostileRankFiles_data();
    void hostileRankFiles();
    void summaryBlockIsTheSameReader();
    void filesRecognisedByContent();
    void fileList();
    void problemsAreSaid();
    void processGroupsAreNotCompared();
    void thousandRanksWithPlantedStragglers();
    void rankTheOthersWaitFor_data();
    void rankTheOthersWaitFor();
    void messageSizeFromShapes();
    void ranksAlignedOnTheirCollectives_data();
    void ranksAlignedOnTheirCollectives();
    void commands();
};

void TestJob::hostFromFileName_data() {
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("host");
    QTest::newRow("tensorboard_trace_handler")
        << "/logs/node-17.cluster_40213.1716215148212345678.pt.trace.json"
        << "node-17.cluster";
    QTest::newRow("gzip, milliseconds (older PyTorch)") << "gpu3_991.1652884123456.pt.trace.json.gz"
                                                        << "gpu3";
    QTest::newRow("HTA's rank file name") << "rank-0.Apr_03_18_51_38.1102.pt.trace.json"
                                          << "";
    QTest::newRow("no pid") << "host.1716215148212345678.pt.trace.json"
                            << "";
    QTest::newRow("another name") << "sampled_rank-0.json.gz"
                                  << "";
}

void TestJob::hostFromFileName() {
    QFETCH(QString, path);
    QFETCH(QString, host);
    QCOMPARE(QString::fromStdString(hostFromTraceFileName(path.toStdString())), host);
}

void TestJob::rankFileRoundTrip_data() {
    QTest::addColumn<QString>("trace");
    QTest::addColumn<int>("rank");
    QTest::addColumn<int>("worldSize");
    QTest::newRow("HTA trace_filter, rank 0 of 128") << sampledRank0 << 0 << 128;
    QTest::newRow("HTA trace_filter, rank 1 of 128") << sampledRank1 << 1 << 128;
    QTest::newRow("HTA rank 0 of 16 (80 NCCL kernels)")
        << "facebookresearch__HolisticTraceAnalysis/"
           "tests__data__negative_queue_length_values_check__rank0.json.gz"
        << 0 << 16;
    QTest::newRow("HTA trace_diff, rank 3 of 8")
        << "facebookresearch__HolisticTraceAnalysis/tests__data__trace_diff__control__control.json.gz" << 3
        << 8;
    QTest::newRow("TraceLens b200, rank 0 of 8")
        << "AMD-AGI__TraceLens/tests__traces__b200__eager_trace.json.gz" << 0 << 8;
    QTest::newRow("no distributedInfo.rank")
        << "facebookresearch__HolisticTraceAnalysis/tests__data__rank_unavailable__rank_not_found.json.gz"
        << -1 << 0;
}

void TestJob::rankFileRoundTrip() {
    QFETCH(QString, trace);
    QFETCH(int, rank);
    QFETCH(int, worldSize);
    const RankFigures f = figuresOf(trace.toUtf8().constData());
    QCOMPARE(f.rank, std::int64_t(rank));
    QCOMPARE(f.worldSize, std::int64_t(worldSize));
    if (rank < 0) QVERIFY(!f.notes.empty()); // said plainly
    // Every collective run of a step is an instance, numbered in issue order.
    std::uint64_t calls = 0;
    for (const CollectiveStats& c : f.collectives)
        calls += c.calls;
    QCOMPARE(std::uint64_t(f.instances.size()) + f.instancesDropped, calls);
    for (std::size_t i = 1; i < f.instances.size(); ++i)
        QVERIFY(f.instances[i].issue > f.instances[i - 1].issue);
    for (const CollectiveInstance& c : f.instances) {
        QVERIFY(c.start >= 0 && c.end >= c.start);
        QVERIFY(c.end <= f.steps[c.step].end - f.steps[c.step].start + f.collectives[c.collective].longest);
    }
    const std::string json = rankFileJson(f);
    QVERIFY(json.size() <= rankFileBudget);
    QVERIFY(json.starts_with("{\n\"format\": \"kinetoscope-rank\""));
    std::string error;
    const auto back = readRankFigures(json, &error);
    QVERIFY2(back, error.c_str());
    compareFigures(*back, f);
    QCOMPARE(back->instances.size(), f.instances.size());
    for (std::size_t i = 0; i < f.instances.size(); ++i) {
        QCOMPARE(back->instances[i].step, f.instances[i].step);
        QCOMPARE(back->instances[i].collective, f.instances[i].collective);
        QCOMPARE(back->instances[i].issue, f.instances[i].issue);
        QCOMPARE(back->instances[i].start, f.instances[i].start);
        QCOMPARE(back->instances[i].end, f.instances[i].end);
        // Version 2 keeps each run's launch, which tells late launches from a late GPU.
        QVERIFY(f.instances[i].issuedKnown && back->instances[i].issuedKnown);
        QCOMPARE(back->instances[i].issued, f.instances[i].issued);
    }
    // A version 1 file (five columns) still reads, its launches unknown.
    std::string v1 = json;
    const auto columns = v1.find(", \"issued_us\"]");
    QVERIFY(columns != std::string::npos);
    v1.erase(columns, std::string(", \"issued_us\"").size());
    v1.replace(v1.find("\"version\": 2"), 12, "\"version\": 1");
    if (!f.instances.empty()) {
        std::string rows;
        for (const CollectiveInstance& c : f.instances)
            rows += (rows.empty() ? "" : ",") + QStringLiteral("[%1,%2,%3,%4,%5]")
                                                    .arg(c.step)
                                                    .arg(c.collective)
                                                    .arg(c.issue)
                                                    .arg(double(c.start) / 1000, 0, 'f', 3)
                                                    .arg(double(c.end) / 1000, 0, 'f', 3)
                                                    .toStdString();
        const auto open = v1.find("\"rows\": [", v1.find("collective_instances"));
        const auto close = v1.find("]]}", open);
        QVERIFY(open != std::string::npos && close != std::string::npos);
        v1.replace(open, close + 3 - open, "\"rows\": [" + rows + "]}");
        const auto old = readRankFigures(v1, &error);
        QVERIFY2(old, (error + "\n" + v1.substr(0, 2000)).c_str());
        QCOMPARE(old->instances.size(), f.instances.size());
        QVERIFY(!old->instances.front().issuedKnown);
    }
}

// A rank with more collective runs than 64 KB holds keeps the same number from every step and says so.
void TestJob::rankFileStaysUnderItsBudget() {
    RankFigures f;
    f.rank = 5;
    f.worldSize = 64;
    for (int s = 0; s < 4; ++s)
        f.steps.push_back({.name = "ProfilerStep#" + std::to_string(s),
                           .start = s * 1'000'000'000LL,
                           .end = (s + 1) * 1'000'000'000LL});
    f.collectives.push_back({.name = "AllReduce", .messageBytes = 1 << 20, .calls = 20000});
    for (std::uint32_t i = 0; i < 20000; ++i)
        f.instances.push_back(
            {i % 4 == 3 ? 3u : i % 3, 0, i, TimeNs(i) * 1000 + 123'456, TimeNs(i) * 1000 + 523'456});
    const std::string json = rankFileJson(f);
    QVERIFY2(json.size() <= rankFileBudget, qPrintable(QString::number(json.size())));
    QVERIFY(json.size() > rankFileBudget * 3 / 4); // the budget is used, not wasted
    const auto back = readRankFigures(json);
    QVERIFY(back);
    QCOMPARE(back->instancesDropped + back->instances.size(), std::uint64_t(20000));
    std::vector<std::size_t> perStep(4, 0);
    for (const CollectiveInstance& c : back->instances)
        ++perStep[c.step];
    QVERIFY(perStep[0] > 100);
    QCOMPARE(perStep[1], perStep[0]);
    QCOMPARE(perStep[2], perStep[0]);
    QCOMPARE(perStep[3], perStep[0]);
    QVERIFY(std::any_of(back->notes.begin(), back->notes.end(),
                        [](const std::string& n) { return n.find("kept the first") != std::string::npos; }));
}

// Steps and collectives past what 64 KB holds: the first steps and the collectives with the most time are
// kept (with their runs), and the notes say what was left out.
void TestJob::rankFileOfHundredsOfStepsAndCollectives() {
    RankFigures f;
    f.rank = 0;
    f.worldSize = 2;
    for (int s = 0; s < 2000; ++s)
        f.steps.push_back({.name = "ProfilerStep#" + std::to_string(s),
                           .start = s * 1'000'000LL,
                           .end = (s + 1) * 1'000'000LL});
    for (int c = 0; c < 1000; ++c)
        f.collectives.push_back(
            {.name = "AllToAll", .messageBytes = double(4096 + c), .calls = 1, .total = 1'000'000 - c});
    for (std::uint32_t i = 0; i < 2000; ++i)
        f.instances.push_back({i, i % 1000, i, 100, 200});
    const std::string json = rankFileJson(f);
    QVERIFY2(json.size() <= rankFileBudget, qPrintable(QString::number(json.size())));
    const auto back = readRankFigures(json);
    QVERIFY(back);
    QVERIFY(back->steps.size() > 10 && back->steps.size() < 2000);
    QVERIFY(back->collectives.size() > 10 && back->collectives.size() < 1000);
    QCOMPARE(back->steps.front().name, std::string("ProfilerStep#0"));
    QCOMPARE(back->collectives.front().total, TimeNs(1'000'000)); // the most time first
    for (const CollectiveInstance& c : back->instances)
        QVERIFY(c.step < back->steps.size() && c.collective < back->collectives.size());
    QCOMPARE(back->instancesDropped + back->instances.size(), std::uint64_t(2000));
    const auto said = [&](std::string_view text) {
        return std::any_of(back->notes.begin(), back->notes.end(),
                           [&](const std::string& n) { return n.find(text) != std::string::npos; });
    };
    QVERIFY(said("of 2000 steps"));
    QVERIFY(said("of 1000 collectives"));
}

// A rank file made by hand or damaged: refused with a reason, never a crash, a hang or a wrong figure.
void TestJob::hostileRankFiles_data() {
    QTest::addColumn<QString>("json");
    QTest::addColumn<QString>("error");
    const QString head = R"({"format": "kinetoscope-rank", "version": 1, "rank": 0, "world_size": 2, )";
    const QString step = R"("steps": [{"name": "s", "start_us": 0.000, "end_us": 10.000}], )";
    const QString coll = R"("collectives": [{"name": "AllReduce", "calls": 1, "total_us": 1.000}], )";
    QTest::newRow("a run ending before it starts")
        << head + step + coll + R"("collective_instances": {"rows": [[0, 0, 0, 5.000, 1.000]]}})"
        << "out of range";
    QTest::newRow("a run beyond 2^53 ns")
        << head + step + coll + R"("collective_instances": {"rows": [[0, 0, 0, 0, 1e16]]}})"
        << "out of range";
    QTest::newRow("an issue number past 32 bits")
        << head + step + coll + R"("collective_instances": {"rows": [[0, 0, 4294967296, 0, 1]]}})"
        << "out of range";
    QTest::newRow("a step beyond 2^62 ns")
        << head +
               R"("steps": [{"name": "s", "start_us": 0.000, "end_us": 9223372036854775.807}], "collectives": []})"
        << "out of range";
    QTest::newRow("a step ending before it starts")
        << head + R"("steps": [{"name": "s", "start_us": 10.000, "end_us": 0.000}], "collectives": []})"
        << "ends before";
    QTest::newRow("an instance pointing past the tables")
        << head + step + coll + R"("collective_instances": {"rows": [[3, 0, 0, 0, 1]]}})"
        << "outside";
}

void TestJob::hostileRankFiles() {
    QFETCH(QString, json);
    QFETCH(QString, error);
    std::string why;
    QVERIFY(!readRankFigures(json.toStdString(), &why));
    QVERIFY2(QString::fromStdString(why).contains(error), why.c_str());
}

// `summary --json` writes the same block through the same writer; the job reads it with the same reader.
void TestJob::summaryBlockIsTheSameReader() {
    LoadResult r = loadTrace(test::tracePath(sampledRank0));
    QVERIFY(r.ok());
    const auto report = computeAnalysis(*r.store, std::nullopt, OperatorGrouping::Name, KernelGrouping::Name);
    const std::string json = summaryToJson(report->summary, report.get());
    const auto back = readRankFigures(json);
    QVERIFY(back);
    compareFigures(*back, report->distributed);
    // What each step's host did: its ranges directly inside ProfilerStep, the longest first.
    QVERIFY(!report->distributed.steps.empty());
    for (const RankStep& s : report->distributed.steps) {
        QVERIFY(!s.hostRanges.empty() && s.hostRanges.size() <= maxHostRanges);
        for (std::size_t i = 1; i < s.hostRanges.size(); ++i)
            QVERIFY(s.hostRanges[i - 1].second >= s.hostRanges[i].second);
        QVERIFY(s.hostRanges.front().second <= s.end - s.start);
    }
    QCOMPARE(back->instances.size(), report->distributed.instances.size());
    std::string error;
    QVERIFY(!readRankFigures("{\"format\": \"kinetoscope-rank\", \"version\": 99}", &error));
    QVERIFY2(error.find("newer") != std::string::npos, error.c_str());
    QVERIFY(!readRankFigures(
        "{\"format\": \"kinetoscope-rank\", \"version\": 1, \"steps\": [], \"collectives\": [], "
        "\"collective_instances\": {\"rows\": [[0, 0, 0, 1.000, 2.000]]}}",
        &error));
    QVERIFY2(error.find("outside") != std::string::npos, error.c_str());
}

// Rank files, summaries and traces, whatever their names; a bad file is listed with its one-line error.
void TestJob::filesRecognisedByContent() {
    QTemporaryDir dir;
    const RankFigures rank0 = figuresOf(sampledRank0);
    writeFile(dir.filePath("first.txt"), rankFileJson(rank0));
    {
        LoadResult r = loadTrace(test::tracePath(sampledRank1));
        QVERIFY(r.ok());
        const auto report =
            computeAnalysis(*r.store, std::nullopt, OperatorGrouping::Name, KernelGrouping::Name);
        writeFile(dir.filePath("second.data"), summaryToJson(report->summary, report.get()));
    }
    QVERIFY(QFile::copy(QString::fromStdString(test::tracePath(sampledRank1)), dir.filePath("third")));
    const std::string truncated = rankFileJson(rank0).substr(0, 300);
    writeFile(dir.filePath("truncated.json"), truncated);
    writeFile(dir.filePath("foreign.json"), "{\"hello\": \"world\"}");
    writeFile(dir.filePath("empty.json"), "");
    writeFile(dir.filePath(".hidden"), "ignored");
    std::vector<UnreadableFile> unreadable;
    const std::vector<std::string> files = jobFiles({dir.path().toStdString()}, unreadable);
    QCOMPARE(files.size(), std::size_t(6)); // not the hidden file
    const JobInputs in = readJobInputs(files, {.threads = 2});
    QCOMPARE(in.ranks.size(), std::size_t(3));
    QCOMPARE(in.unreadable.size(), std::size_t(3));
    for (const UnreadableFile& u : in.unreadable) {
        QVERIFY2(u.error.starts_with(u.path + ": "), u.error.c_str());
        QVERIFY(u.error.find('\n') == std::string::npos);
    }
    QCOMPARE(readRankInput(dir.filePath("first.txt").toStdString()).kind, RankInputKind::RankFile);
    QCOMPARE(readRankInput(dir.filePath("second.data").toStdString()).kind, RankInputKind::Summary);
    QCOMPARE(readRankInput(dir.filePath("third").toStdString()).kind, RankInputKind::Trace);
    const JobReport job = analyseJob(in.ranks, in.unreadable);
    QCOMPARE(job.ranks.size(), std::size_t(3));
    QCOMPARE(job.unreadable.size(), std::size_t(3));
    // Rank 1 twice (its summary and its trace): said, both kept.
    QVERIFY(std::any_of(job.problems.begin(), job.problems.end(),
                        [](const std::string& p) { return p.starts_with("rank 1 is claimed by 2 files"); }));
}

void TestJob::fileList() {
    QTemporaryDir dir;
    writeFile(dir.filePath("list.txt"), "# the job's ranks\nranks/a.json\n\n  /abs/b.json  \r\nc.json\n");
    std::vector<UnreadableFile> unreadable;
    const auto files = readFileList(dir.filePath("list.txt").toStdString(), unreadable);
    QVERIFY(unreadable.empty());
    QCOMPARE(files.size(), std::size_t(3));
    QCOMPARE(QString::fromStdString(files[0]), dir.filePath("ranks/a.json"));
    QCOMPARE(files[1], std::string("/abs/b.json"));
    QVERIFY(readFileList(dir.filePath("missing.txt").toStdString(), unreadable).empty());
    QCOMPARE(unreadable.size(), std::size_t(1));
}

// TraceLens' b200 rank: its all-gather says its group, "Process Group Ranks": "[0, 1, ..., 7]".
// Two groups of two ranks each run an all-reduce of one size at once: each rank waits only for its own
// group's last arrival.
void TestJob::processGroupsAreNotCompared() {
    const RankFigures b200 = figuresOf("AMD-AGI__TraceLens/tests__traces__b200__eager_trace.json.gz");
    QCOMPARE(b200.collectives.size(), std::size_t(1));
    QCOMPARE(b200.collectives[0].group, std::string("0-7"));
    std::vector<RankFigures> ranks(4);
    const TimeNs arrival[] = {10'000, 20'000, 10'000, 60'000};
    for (int r = 0; r < 4; ++r) {
        RankFigures& f = ranks[std::size_t(r)];
        f.rank = r;
        f.worldSize = 4;
        f.steps.push_back({.name = "ProfilerStep#1", .end = 1'000'000});
        f.collectives.push_back({.name = "AllReduce",
                                 .messageBytes = 1 << 20,
                                 .group = r < 2 ? "0-1" : "2-3",
                                 .calls = 1,
                                 .total = 100'000});
        f.instances.push_back({0, 0, 0, arrival[r], arrival[r] + 100'000});
    }
    const JobReport job = analyseJob(std::move(ranks));
    QCOMPARE(job.collectives.size(), std::size_t(2));
    QCOMPARE(job.ranks[0].collectives[0].synchronization, TimeNs(10'000)); // its group's last: rank 1
    QCOMPARE(job.ranks[1].collectives[0].synchronization, TimeNs(0));
    QCOMPARE(job.ranks[2].collectives[0].synchronization, TimeNs(50'000)); // its group's last: rank 3
    QCOMPARE(job.ranks[3].collectives[0].synchronization, TimeNs(0));
}

void TestJob::problemsAreSaid() {
    std::vector<RankFigures> ranks(5);
    const std::int64_t rankOf[] = {0, 1, 1, 3, -1};
    const std::int64_t worldOf[] = {8, 8, 8, 16, 0};
    for (std::size_t i = 0; i < 5; ++i) {
        ranks[i].rank = rankOf[i];
        ranks[i].worldSize = worldOf[i];
        ranks[i].source = "r" + std::to_string(i) + ".json";
    }
    const JobReport job = analyseJob(ranks);
    const auto said = [&](std::string_view text) {
        return std::any_of(job.problems.begin(), job.problems.end(),
                           [&](const std::string& p) { return p.find(text) != std::string::npos; });
    };
    QVERIFY(said("rank 1 is claimed by 2 files: r1.json, r2.json"));
    QVERIFY(said("disagree on the world size: 8 in 3 files, 16 in 1 files"));
    QVERIFY(said("1 files do not say their rank"));
    QCOMPARE(job.worldSize, std::int64_t(0));          // not guessed
    QCOMPARE(job.ranks.back().rank, std::int64_t(-1)); // unknown last
    QCOMPARE(rankLabel(job.ranks.back()), std::string("rank ? (r4.json)"));
    // A world size far beyond the files costs what the files do, not what the number says.
    std::vector<RankFigures> huge(2);
    huge[0].rank = 0;
    huge[1].rank = 5;
    huge[0].worldSize = huge[1].worldSize = 9'000'000'000'000'000'000LL;
    const JobReport hugeJob = analyseJob(huge);
    QVERIFY(std::any_of(hugeJob.problems.begin(), hugeJob.problems.end(), [](const std::string& p) {
        return p.starts_with(
            "8999999999999999998 of the world's 9000000000000000000 ranks are not here: 1-4, 6-");
    }));
    std::vector<RankFigures> agreeing(3);
    for (std::int64_t i = 0; i < 3; ++i) {
        agreeing[std::size_t(i)].rank = i == 2 ? 9 : i;
        agreeing[std::size_t(i)].worldSize = 8;
    }
    const JobReport missing = analyseJob(agreeing);
    QCOMPARE(missing.worldSize, std::int64_t(8));
    QVERIFY(std::any_of(missing.problems.begin(), missing.problems.end(), [](const std::string& p) {
        return p == "6 of the world's 8 ranks are not here: 2-7";
    }));
    QVERIFY(std::any_of(missing.problems.begin(), missing.problems.end(),
                        [](const std::string& p) { return p == "ranks beyond the world size of 8: 9"; }));
}

// 1,000 ranks made from the real rank 0 of 128: everyone runs its steps; three (rank, step) pairs compute
// longer, and arrive that much later at every collective of the step. They come first, worst first, and the
// ranks that wait for them are named.
void TestJob::thousandRanksWithPlantedStragglers() {
    const RankFigures model = figuresOf(sampledRank0);
    QVERIFY(model.steps.size() >= 2 && !model.instances.empty());
    struct Planted {
        std::int64_t rank;
        std::size_t step;
        TimeNs extra;
    };
    const Planted planted[] = {{613, 1, 40'000'000}, {17, 0, 25'000'000}, {998, 1, 9'000'000}};
    std::vector<RankFigures> ranks;
    for (std::int64_t r = 0; r < 1000; ++r) {
        RankFigures f = model;
        f.rank = r;
        f.worldSize = 1000;
        f.source = "rank" + std::to_string(r) + ".json";
        // A little noise, well under 5%, so the median is a real rank's.
        for (RankStep& s : f.steps)
            s.computation += (r * 7919 % 1000) * 1000;
        // The planted rank arrives `extra` late at every collective of its step; a collective ends together
        // on every rank, so the others' kernels of that step end that much later too (they wait).
        for (const Planted& p : planted) {
            f.steps[p.step].computation += p.rank == r ? p.extra : 0;
            for (CollectiveInstance& c : f.instances)
                if (c.step == p.step) {
                    if (p.rank == r) c.start += p.extra;
                    c.end += p.extra;
                }
        }
        ranks.push_back(std::move(f));
    }
    const JobReport job = analyseJob(std::move(ranks));
    QCOMPARE(job.ranks.size(), std::size_t(1000));
    QVERIFY(job.problems.empty());
    QCOMPARE(job.steps.size(), model.steps.size());
    QCOMPARE(job.steps[0].ranks, std::size_t(1000));
    QCOMPARE(job.stragglers.size(), std::size_t(3));
    for (std::size_t i = 0; i < 3; ++i) {
        const StragglerRow& s = job.stragglers[i];
        QCOMPARE(job.ranks[s.rank].rank, planted[i].rank);
        QCOMPARE(s.step, model.steps[planted[i].step].name);
        QVERIFY(std::llabs(s.excess - planted[i].extra) < 1'000'000); // within the noise
        QCOMPARE(s.victims.size(), std::size_t(3));
        for (const Victim& v : s.victims)
            QVERIFY(v.waited > 0 && job.ranks[v.rank].rank != planted[i].rank);
    }
    // The planted rank arrives last at its step's collectives.
    bool lastNamed = false;
    for (const CollectiveSpread& c : job.collectives)
        for (const LastArrival& l : c.lastToArrive)
            lastNamed = lastNamed || job.ranks[l.rank].rank == 613;
    QVERIFY(lastNamed);
    // Its waits are the others'.
    QVERIFY(job.communication[613].synchronization < job.communication[0].synchronization);
    const QJsonObject root = QJsonDocument::fromJson(QByteArray::fromStdString(jobReportJson(job))).object();
    const QJsonArray stragglers = root["stragglers"].toArray();
    QCOMPARE(stragglers.size(), 3);
    QCOMPARE(stragglers[0]["rank"].toInteger(), 613);
    QCOMPARE(stragglers[0]["step"].toString().toStdString(), model.steps[1].name);
    const std::string text = jobReportText(job, 20);
    QVERIFY2(text.starts_with("Job: 1000 ranks of a world of 1000, 2 steps\n"), text.substr(0, 80).c_str());
    QVERIFY(text.find("rank 613") < text.find("rank 17 "));
    QVERIFY(text.find("… and 980 more ranks") != std::string::npos);
}

// A Megatron TP=8 job on A100s, one step of 84 all-reduces: no rank computes 5% more than the median, yet
// rank 6 arrives last at all 84 and never waits while the others wait 241-449 ms. It is a straggler whatever
// its computation, named first, with the cause the trace shows.
void TestJob::rankTheOthersWaitFor_data() {
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("cause");
    QTest::newRow("late launches") << "launch"
                                   << "late launches on its host";
    QTest::newRow("GPU idle") << "idle"
                              << "its GPU idle";
    QTest::newRow("more computation") << "compute"
                                      << "more computation";
    QTest::newRow("nothing the trace shows") << "none"
                                             << "look at its host";
    // Its host spent 27.0 ms in the DataLoader where the others spent 2.3 ms (Megatron's rank 6).
    QTest::newRow("its host loading data")
        << "loader"
        << "its host in enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__: 27.000 ms against a "
           "median "
           "of 2.303 ms on the other ranks";
}

void TestJob::rankTheOthersWaitFor() {
    QFETCH(QString, kind);
    QFETCH(QString, cause);
    std::vector<RankFigures> ranks(8);
    for (int r = 0; r < 8; ++r) {
        RankFigures& f = ranks[std::size_t(r)];
        f.rank = r;
        f.worldSize = 8;
        f.source = "rank" + std::to_string(r) + ".json";
        // Rank 3's step runs longest (its last kernel ends later): the step's slowest rank.
        RankStep step{.name = "ProfilerStep#2", .start = 0, .end = r == 3 ? 2'100'000'000 : 2'000'000'000};
        step.computation = 1'000'000'000 + r * 1'000'000; // within 1% of each other
        step.other = 100'000'000;
        if (r == 6 && kind == "idle") step.other = 600'000'000;
        if (r == 6 && kind == "compute") step.computation = 1'200'000'000;
        step.hostRanges = {{"forward", 400'000'000},
                           {"enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__",
                            r == 6 && kind == "loader" ? 27'000'000 : 2'300'000 + r * 1'000}};
        f.steps.push_back(step);
        f.collectives.push_back({.name = "AllReduce", .messageBytes = 67108864, .group = "0-7", .calls = 84});
        for (std::uint32_t k = 0; k < 84; ++k) {
            // Rank 6 reaches every all-reduce 4 ms after the others, which then wait for it (3-5 ms each).
            const TimeNs base = 10'000'000 + TimeNs(k) * 20'000'000;
            const TimeNs arrival = base + (r == 6 ? 4'000'000 : TimeNs(r % 3) * 500'000);
            // Every rank launches 50 us before its kernel starts, except a rank 6 whose host is not late: it
            // launched on time, and its GPU started the all-reduce late.
            const TimeNs issued =
                r == 6 && kind != "launch" && kind != "loader" ? base - 50'000 : arrival - 50'000;
            f.instances.push_back({0, 0, k, arrival, base + 5'000'000, issued, true});
            f.collectives[0].total += base + 5'000'000 - arrival;
        }
    }
    const JobReport job = analyseJob(std::move(ranks));
    QVERIFY(!job.stragglers.empty());
    const StragglerRow& s = job.stragglers.front();
    QCOMPARE(job.ranks[s.rank].rank, std::int64_t(6));
    QVERIFY(s.arrivesLast);
    QCOMPARE(s.lastArrivals, std::uint64_t(84));
    QCOMPARE(s.operations, std::uint64_t(84));
    QCOMPARE(s.waited, TimeNs(0));
    QVERIFY(s.othersWaited >= 84 * 3'000'000);
    QVERIFY2(!s.causes.empty() && QString::fromStdString(s.causes.front()).contains(cause),
             s.causes.empty() ? "no cause" : s.causes.front().c_str());
    // The CLI's text and JSON name it first, with its cause.
    const std::string text = jobReportText(job, 20);
    const auto at = text.find("rank 6       ProfilerStep#2       last at 84 of 84 collectives, waited 0 ns");
    QVERIFY2(at != std::string::npos, text.c_str());
    QVERIFY(text.find("cause: " + s.causes.front()) != std::string::npos);
    const QJsonObject root = QJsonDocument::fromJson(QByteArray::fromStdString(jobReportJson(job))).object();
    const QJsonObject first = root["stragglers"].toArray().first().toObject();
    QCOMPARE(first["rank"].toInteger(), 6);
    QCOMPARE(first["arrives_last"].toBool(), true);
    // The step names its slowest rank (its longest step time), in the JSON and the text.
    QCOMPARE(job.ranks[job.steps[0].slowestRank].rank, std::int64_t(3));
    QCOMPARE(root["steps"].toArray()[0].toObject()["slowest_rank"].toInteger(), 3);
    QVERIFY2(text.find("  rank 3\n") != std::string::npos, text.c_str());
    QCOMPARE(first["last_arrivals"].toInteger(), 84);
    QVERIFY(first["causes"].toArray().first().toString().contains(cause));
}

// PyTorch before 2.1 writes no "In msg nelems": the size comes from record_param_comms' "Input Dims" and the
// type from its "Input type", else from the NCCL kernel's name (a Megatron job: [[4, 2048, 4096]], f16).
void TestJob::messageSizeFromShapes() {
    const auto sizeOf = [](const std::string& opArgs, const std::string& kernel) {
        const LoadResult r =
            test::loadText(R"({"distributedInfo": {"rank": 0, "world_size": 8}, "traceEvents": [
 {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 1000},
 {"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": 1, "tid": 1, "ts": 10, "dur": 20, "args": )" +
                           opArgs + R"(},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 12, "dur": 5,
  "args": {"correlation": 1}},
 {"ph": "X", "cat": "kernel", "name": ")" +
                           kernel +
                           R"(", "pid": 0, "tid": 13, "ts": 40, "dur": 300,
  "args": {"correlation": 1, "device": 0, "stream": 13}}]})");
        if (!r.ok()) qFatal("%s", r.error.c_str());
        const RankFigures f = rankFigures(*r.store);
        return f.collectives.empty() ? -1.0 : f.collectives.front().messageBytes;
    };
    QCOMPARE(sizeOf(R"({"Input Dims": [[4, 2048, 4096]], "Input type": ["c10::Half"]})",
                    "ncclKernel_AllReduce_RING_LL_Sum_half(ncclWorkElem)"),
             67108864.0);
    QCOMPARE(sizeOf(R"({"Input Dims": [[4, 2048, 4096]]})", "ncclDevKernel_AllReduce_Sum_f16_RING_LL"),
             67108864.0);
    QCOMPARE(sizeOf(R"({"Input Dims": [[1024]]})", "ncclDevKernel_AllReduce_Sum_f32_RING_LL128"), 4096.0);
    // The newer field wins where it is written.
    QCOMPARE(sizeOf(R"({"In msg nelems": 10, "dtype": "Float", "Input Dims": [[4, 2048, 4096]]})",
                    "ncclDevKernel_AllReduce_Sum_f32_RING_LL"),
             40.0);
    // Without a type anywhere: unknown, not guessed.
    QCOMPARE(sizeOf(R"({"Input Dims": [[1024]]})", "ncclDevKernel_AllReduce_Sum_RING_LL"), 0.0);

    // HTA's sampled rank 0 (PyTorch 2.0, no "In msg nelems"): its record_param_comms say [[419430400]]
    // "unsigned char", [[384]] "long" and [[2846720]] "int".
    const RankFigures real = figuresOf(sampledRank0);
    std::set<double> sizes;
    for (const CollectiveStats& c : real.collectives)
        sizes.insert(c.messageBytes);
    for (double expected : {419430400.0, 384.0 * 8, 2846720.0 * 4})
        QVERIFY2(sizes.count(expected), qPrintable(QString::number(expected, 'f', 0)));
    QVERIFY(!sizes.count(0.0)); // every call's size is known there
}

// `rank TRACE -o FILE` on each rank where it lives, then `job` over the rank files (and a bad one).
void TestJob::commands() {
    QTemporaryDir dir;
    for (const char* trace : {sampledRank0, sampledRank1}) {
        QProcess p;
        const QString out = dir.filePath(trace == sampledRank0 ? "r0.rank.json" : "r1.rank.json");
        p.start(KINETOSCOPE_CLI, {"rank", QString::fromStdString(test::tracePath(trace)), "-o", out});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 0);
        QVERIFY(QFile::exists(out));
        QVERIFY(!QFile::exists(out + ".partial"));
    }
    writeFile(dir.filePath("broken.json"), "{\"format\": \"kinetoscope-rank\", \"version\": 1, \"steps\": [");
    QProcess p;
    p.start(KINETOSCOPE_CLI, {"job", dir.path(), "--json"});
    QVERIFY(p.waitForFinished(60000));
    QCOMPARE(p.exitCode(), 0);
    const QByteArray out = p.readAllStandardOutput();
    const QByteArray err = p.readAllStandardError();
    QVERIFY2(err.contains("broken.json: "), err.constData());
    const QJsonObject root = QJsonDocument::fromJson(out).object();
    QCOMPARE(root["ranks"].toInt(), 2);
    QCOMPARE(root["unreadable"].toArray().size(), 1);
    const QJsonArray stragglers = root["stragglers"].toArray();
    QVERIFY(stragglers.size() >= 1);
    for (const char* key : {"rank", "step", "excess_us", "victims"})
        QVERIFY2(stragglers[0].toObject().contains(QLatin1String(key)), key);
    // Nothing readable: exit 1, one line per file.
    QProcess none;
    none.start(KINETOSCOPE_CLI, {"job", dir.filePath("broken.json")});
    QVERIFY(none.waitForFinished(60000));
    QCOMPARE(none.exitCode(), 1);
}

// A Megatron TP=8 job's shape (issue 61): the ranks share one clock and each all-reduce's kernels end within
// 49 µs on all eight, but their steps start up to 30.5 ms apart. Rank 0 reaches 32 of the 84 all-reduces
// last, rank 6 28 and rank 3 15, each 4 ms after the others. Compared from each step's start (as before),
// rank 0 looked 30.5 ms early; by the clock it is the first straggler and rank 6 the second, rank 3 none.
// With the hosts' clocks apart (each rank's shifted by 137 ms more than the last), each call aligned on its
// end says the same.
void TestJob::ranksAlignedOnTheirCollectives_data() {
    QTest::addColumn<bool>("clocksApart");
    QTest::newRow("one clock") << false;
    QTest::newRow("clocks apart") << true;
}

void TestJob::ranksAlignedOnTheirCollectives() {
    QFETCH(bool, clocksApart);
    const TimeNs stepStartOffset[8] = {30'500'000, 0,         2'000'000,  9'000'000,
                                       1'000'000,  4'000'000, 12'000'000, 500'000};
    const auto lastRankOf = [](std::uint32_t k) { return k < 32 ? 0 : k < 60 ? 6 : k < 75 ? 3 : 1; };
    std::vector<RankFigures> ranks(8);
    for (int r = 0; r < 8; ++r) {
        RankFigures& f = ranks[std::size_t(r)];
        f.rank = r;
        f.worldSize = 8;
        f.source = "rank" + std::to_string(r) + ".json";
        const TimeNs clock = clocksApart ? TimeNs(r) * 137'000'000 : 0; // this rank's clock against rank 0's
        const TimeNs stepStart = 1'000'000'000 + stepStartOffset[r] + clock;
        RankStep step{.name = "ProfilerStep#4", .start = stepStart, .end = stepStart + 2'000'000'000};
        step.computation = 1'000'000'000;
        step.other = 100'000'000;
        f.steps.push_back(step);
        f.collectives.push_back({.name = "AllReduce", .messageBytes = 67108864, .group = "0-7", .calls = 84});
        for (std::uint32_t k = 0; k < 84; ++k) {
            // By rank 0's clock: the call's last rank arrives 4 ms after the others, and all end together
            // (within 49 µs) 50 ms after that.
            const TimeNs base = 1'100'000'000 + TimeNs(k) * 20'000'000;
            const TimeNs arrival = base + (r == lastRankOf(k) ? 4'000'000 : TimeNs(r) * 10'000);
            const TimeNs end = base + 54'000'000 + TimeNs(r % 2) * 49'000;
            f.instances.push_back({0, 0, k, arrival + clock - stepStart, end + clock - stepStart,
                                   arrival + clock - stepStart - 50'000, true});
            f.collectives[0].total += end - arrival;
        }
    }
    const JobReport job = analyseJob(std::move(ranks));
    QCOMPARE(job.sharedClock, !clocksApart);
    QCOMPARE(job.collectives.size(), std::size_t(1));
    const CollectiveSpread& c = job.collectives.front();
    QCOMPARE(c.lastToArrive.size(), std::size_t(3));
    QCOMPARE(job.ranks[c.lastToArrive[0].rank].rank, std::int64_t(0));
    QCOMPARE(c.lastToArrive[0].times, std::uint64_t(32));
    QCOMPARE(job.ranks[c.lastToArrive[1].rank].rank, std::int64_t(6));
    QCOMPARE(c.lastToArrive[1].times, std::uint64_t(28));
    QCOMPARE(job.ranks[c.lastToArrive[2].rank].rank, std::int64_t(3));
    QCOMPARE(c.lastToArrive[2].times, std::uint64_t(15));
    // Two stragglers the others wait for, rank 0 first (they waited 7 × 32 × ~4 ms for it); rank 3 is not
    // one.
    std::vector<std::int64_t> arriving;
    for (const StragglerRow& s : job.stragglers)
        if (s.arrivesLast) arriving.push_back(job.ranks[s.rank].rank);
    QCOMPARE(arriving, (std::vector<std::int64_t>{0, 6}));
    QVERIFY(job.stragglers.front().othersWaitedFor > TimeNs(7) * 32 * 3'900'000);
    // Every rank transfers about 50 ms a call: waiting is what the last arrival costs the others.
    for (std::size_t r = 0; r < job.ranks.size(); ++r) {
        const RankCommunication& comm = job.communication[r];
        QVERIFY2(comm.transfer >= TimeNs(84) * 49'900'000 && comm.transfer <= TimeNs(84) * 50'100'000,
                 qPrintable(QString::number(comm.transfer)));
    }
    const std::string text = jobReportText(job, 20);
    QVERIFY2(text.find(clocksApart ? "aligned on its end" : "compared by the traces' clock") !=
                 std::string::npos,
             text.c_str());
    // Every rank's step takes 2 s: no rank is the slowest.
    QVERIFY(job.steps.front().slowestTied);
    QVERIFY2(text.find("  tie\n") != std::string::npos, text.c_str());
    QVERIFY(jobReportJson(job).find("\"slowest_tied\": true") != std::string::npos);

    // From the collective to its k-th call on every rank (issue 61 item 10): the arrival order, the last rank
    // and what each waited for it, on either clock.
    const std::vector<CollectiveCall> calls = collectiveCalls(job, 0);
    QCOMPARE(calls.size(), std::size_t(84));
    for (const CollectiveCall& call : calls) {
        QCOMPARE(call.ranks.size(), std::size_t(8));
        QCOMPARE(job.ranks[call.lastRank()].rank, std::int64_t(lastRankOf(call.k)));
        QVERIFY(!call.tied);
        QCOMPARE(call.ranks.front().arrival, TimeNs(0));
        QCOMPARE(call.ranks.back().waited, TimeNs(0));
        // The others waited about 4 ms each (clocks apart: aligned on the ends, which differ by 49 µs).
        for (std::size_t i = 0; i + 1 < call.ranks.size(); ++i)
            QVERIFY2(call.ranks[i].waited > 3'800'000 && call.ranks[i].waited < 4'100'000,
                     qPrintable(QString::number(call.ranks[i].waited)));
        // The kernel on the rank's own clock: what its trace shows.
        const CollectiveCallRank& last = call.ranks.back();
        const CollectiveInstance& in = job.ranks[last.rank].instances[last.instance];
        QCOMPARE(last.start, job.ranks[last.rank].steps[in.step].start + in.start);
    }
    QVERIFY(collectiveCalls(job, 1).empty());
}

QTEST_GUILESS_MAIN(TestJob)
#include "tst_job.moc"
