// Every format variant of FORMAT.md as a named row: the JSON in, a compact description of the store out.
#include "fuzz/fuzz_input.h"
#include "model/gzipsize.h"
#include "query/args.h"
#include "testsupport.h"

#include <QDir>
#include <QFile>
#include <QTest>

using namespace kinetoscope;

class TestTraceLoader : public QObject {
    Q_OBJECT
  private slots:
    void variants_data();
    void variants();
    void gzipVariants_data();
    void gzipVariants();
    void gzipSizeGuesses_data();
    void gzipSizeGuesses();
    void metadata();
    void argsDecodedOnDemand();
    void gpuWorkOnly_data();
    void gpuWorkOnly();
    void gpuWorkOnlyOverManyPieces();
};

namespace {

// "cpu 1/2 [main]: 0:op@0+10 1:child@2+3 | gpu 0/7: 0:k@5+1 | flows: launch 1/2:child -> 0/7:k | issues"
std::string describe(const TraceStore& s) {
    std::string out;
    auto us = [](TimeNs ns) {
        std::string v = std::to_string(ns / 1000);
        if (ns % 1000) v += "." + std::to_string(1000 + (ns % 1000 + 1000) % 1000).substr(1);
        return v;
    };
    auto trackName = [&](const Track& t) {
        std::string n = t.pidText.isValid() && t.pidText.value ? std::string(s.strings().view(t.pidText))
                                                               : std::to_string(t.pid);
        if (t.kind == TrackKind::Counter || t.kind == TrackKind::Async) return n;
        return n + "/" +
               (t.tidText.isValid() && t.tidText.value ? std::string(s.strings().view(t.tidText))
                                                       : std::to_string(t.tid));
    };
    for (const Track& t : s.tracks()) {
        if (!out.empty()) out += " | ";
        static const char* kinds[] = {"cpu", "gpu", "async", "counter"};
        out += std::string(kinds[int(t.kind)]) + " " + trackName(t);
        if (!s.strings().view(t.name).empty()) out += " [" + std::string(s.strings().view(t.name)) + "]";
        out += ":";
        if (t.overflowLane) out += " (overflow from " + std::to_string(t.overflowLane) + ")";
        for (std::uint32_t d = 0; d < t.laneCount(); ++d)
            for (std::uint32_t r = t.laneBegin[d]; r < t.laneBegin[d + 1]; ++r) {
                out += " " + std::to_string(d) + ":" + std::string(s.strings().view(t.names[r])) + "@" +
                       us(t.starts[r] - s.minTime());
                if (!(t.flags[r] & SliceFlag::Instant)) out += "+" + us(t.durations[r]);
                if (t.flags[r] & SliceFlag::Unterminated) out += "!";
            }
        for (std::size_t i = 0; i < t.counterTimes.size(); ++i) {
            char v[32];
            std::snprintf(v, sizeof v, "%g", t.counterValues[i]);
            out += " " + us(t.counterTimes[i] - s.minTime()) + "=" + v;
        }
    }
    if (!s.flows().empty()) {
        out += " | flows:";
        for (const Flow& f : s.flows()) {
            static const char* kinds[] = {"launch", "fwdbwd", "other"};
            out += std::string(" ") + kinds[int(f.kind)] + " " + trackName(s.track(f.source.track)) + ":" +
                   std::string(s.nameOf(f.source)) + "->" + trackName(s.track(f.target.track)) + ":" +
                   std::string(s.nameOf(f.target));
        }
    }
    return out;
}

std::string counters(const ImportStats& st) {
    std::string out;
    auto add = [&](const char* name, std::uint64_t v) {
        if (v) out += std::string(out.empty() ? "" : " ") + name + "=" + std::to_string(v);
    };
    add("malformed", st.malformedEvents);
    add("unknown", st.unknownPhaseEvents);
    add("overlaps", st.overlappingSlices);
    add("jitter", st.jitterOverlaps);
    add("e_without_b", st.endWithoutBegin);
    add("b_without_e", st.beginWithoutEnd);
    add("flow_starts_unmatched", st.flowStartsUnmatched);
    add("flow_ends_unmatched", st.flowEndsUnmatched);
    add("flows_unbound", st.flowsUnbound);
    add("async_unmatched", st.asyncUnmatched);
    if (st.truncated) out += std::string(out.empty() ? "" : " ") + "truncated";
    return out;
}

} // namespace

void TestTraceLoader::variants_data() {
    QTest::addColumn<QString>("json");
    QTest::addColumn<QString>("expected");
    QTest::addColumn<QString>("stats");

    QTest::newRow("object with traceEvents, X nested")
        << R"({"schemaVersion":1,"traceEvents":[{"ph":"X","name":"op","pid":1,"tid":2,"ts":0,"dur":10},{"ph":"X","name":"child","pid":1,"tid":2,"ts":2,"dur":3}]})"
        << "cpu 1/2: 0:op@0+10 1:child@2+3"
        << "";
    QTest::newRow("bare array") << R"([{"ph":"X","name":"a","pid":1,"tid":1,"ts":5,"dur":1}])"
                                << "cpu 1/1: 0:a@0+1"
                                << "";
    QTest::newRow("unsorted input is sorted")
        << R"([{"ph":"X","name":"late","pid":1,"tid":1,"ts":50,"dur":1},{"ph":"X","name":"early","pid":1,"tid":1,"ts":10,"dur":1}])"
        << "cpu 1/1: 0:early@0+1 0:late@40+1"
        << "";
    QTest::newRow("decimal ts and dur, exact ns")
        << R"([{"ph":"X","name":"a","pid":1,"tid":1,"ts":3603029046213.755,"dur":0.125}])"
        << "cpu 1/1: 0:a@0+0.125"
        << "";
    QTest::newRow("string ts, dur, pid, tid")
        << R"([{"ph":"X","name":"a","pid":"7","tid":"8","ts":"100.5","dur":"2"},{"ph":"X","name":"b","pid":7,"tid":8,"ts":101,"dur":1}])"
        << "cpu 7/8: 0:a@0+2 1:b@0.500+1"
        << "";
    QTest::newRow("string pid and tid names")
        << R"([{"ph":"X","name":"k","pid":"Traces","tid":"stream 7","ts":1,"dur":1}])"
        << "cpu Traces/stream 7: 0:k@0+1"
        << "";
    QTest::newRow("same start and duration: earlier in file is parent")
        << R"([{"ph":"X","name":"outer","pid":1,"tid":1,"ts":1,"dur":5},{"ph":"X","name":"inner","pid":1,"tid":1,"ts":1,"dur":5}])"
        << "cpu 1/1: 0:outer@0+5 1:inner@0+5"
        << "";
    QTest::newRow("partial overlap goes to an overflow lane and is counted")
        << R"([{"ph":"X","name":"a","pid":1,"tid":1,"ts":0,"dur":10},{"ph":"X","name":"b","pid":1,"tid":1,"ts":5,"dur":10}])"
        << "cpu 1/1: (overflow from 1) 0:a@0+10 1:b@5+10"
        << "overlaps=1";
    // A slice that overlaps its parent by 1 µs or more, and what it encloses, go below the track's regular
    // lanes (Perfetto's overflow rows): the call tree above keeps its shape (g stays on lane 2, Q on lane 0).
    QTest::newRow("an overlapping slice and its children go after the regular lanes")
        << R"([{"ph":"X","name":"P","pid":1,"tid":1,"ts":0,"dur":100},{"ph":"X","name":"c1","pid":1,"tid":1,"ts":10,"dur":10},{"ph":"X","name":"g","pid":1,"tid":1,"ts":12,"dur":3},{"ph":"X","name":"O","pid":1,"tid":1,"ts":90,"dur":60},{"ph":"X","name":"c2","pid":1,"tid":1,"ts":95,"dur":3},{"ph":"X","name":"oc","pid":1,"tid":1,"ts":110,"dur":10},{"ph":"X","name":"Q","pid":1,"tid":1,"ts":160,"dur":10}])"
        << "cpu 1/1: (overflow from 3) 0:P@0+100 0:Q@160+10 1:c1@10+10 2:g@12+3 3:O@90+60 4:c2@95+3 "
           "4:oc@110+10"
        << "overlaps=1";
    // Three steps that each overlap the next by 0.4 µs (clock jitter): one lane, not a staircase; their
    // children stay under them. Durations are kept as the trace has them.
    QTest::newRow("sub-microsecond overlap of siblings stays on the lane")
        << R"([{"ph":"X","name":"s1","pid":1,"tid":1,"ts":0,"dur":100.4},{"ph":"X","name":"c1","pid":1,"tid":1,"ts":10,"dur":5},{"ph":"X","name":"s2","pid":1,"tid":1,"ts":100,"dur":100.4},{"ph":"X","name":"c2","pid":1,"tid":1,"ts":110,"dur":5},{"ph":"X","name":"s3","pid":1,"tid":1,"ts":200,"dur":100},{"ph":"X","name":"c3","pid":1,"tid":1,"ts":290,"dur":9.999}])"
        << "cpu 1/1: 0:s1@0+100.400 0:s2@100+100.400 0:s3@200+100 1:c1@10+5 1:c2@110+5 1:c3@290+9.999"
        << "jitter=2";
    // 1 µs is not jitter: the second slice goes to another lane, as any overlap.
    QTest::newRow("an overlap of 1 us or more is an overlap")
        << R"([{"ph":"X","name":"a","pid":1,"tid":1,"ts":0,"dur":11},{"ph":"X","name":"b","pid":1,"tid":1,"ts":10,"dur":10}])"
        << "cpu 1/1: (overflow from 1) 0:a@0+11 1:b@10+10"
        << "overlaps=1";
    // A child that ends within 1 µs of its parent's end is still its child (it does not outlast it).
    QTest::newRow("a child ending just before its parent stays nested")
        << R"([{"ph":"X","name":"p","pid":1,"tid":1,"ts":0,"dur":10},{"ph":"X","name":"c","pid":1,"tid":1,"ts":9.5,"dur":0.5}])"
        << "cpu 1/1: 0:p@0+10 1:c@9.500+0.500"
        << "";
    QTest::newRow("B/E pairs nest, E without B dropped, B without E kept")
        << R"([{"ph":"B","name":"outer","pid":1,"tid":1,"ts":0},{"ph":"B","name":"inner","pid":1,"tid":1,"ts":1},{"ph":"E","pid":1,"tid":1,"ts":2},{"ph":"E","pid":1,"tid":1,"ts":4},{"ph":"E","pid":1,"tid":1,"ts":5},{"ph":"B","name":"open","pid":1,"tid":1,"ts":6},{"ph":"X","name":"x","pid":1,"tid":1,"ts":6,"dur":3}])"
        << "cpu 1/1: 0:outer@0+4 0:open@6+3! 1:inner@1+1 1:x@6+3"
        << "e_without_b=1 b_without_e=1";
    QTest::newRow("instants i and I with scope")
        << R"([{"ph":"i","name":"m","pid":1,"tid":1,"ts":1,"s":"t"},{"ph":"I","name":"g","pid":1,"tid":1,"ts":2,"s":"g"}])"
        << "cpu 1/1: 0:m@0 0:g@1"
        << "";
    QTest::newRow("counter: each args key a series")
        << R"([{"ph":"C","name":"mem","pid":3,"ts":1,"args":{"allocated":10,"reserved":20}},{"ph":"C","name":"mem","pid":3,"ts":2,"args":{"allocated":5,"reserved":20}}])"
        << "counter 3 [mem · allocated]: 0=10 1=5 | counter 3 [mem · reserved]: 0=20 1=20"
        << "";
    QTest::newRow("metadata names and sort order")
        << R"([{"ph":"M","name":"process_name","pid":2,"args":{"name":"python"}},{"ph":"M","name":"thread_name","pid":2,"tid":9,"args":{"name":"main"}},{"ph":"M","name":"process_sort_index","pid":5,"args":{"sort_index":-1}},{"ph":"X","name":"a","pid":2,"tid":9,"ts":0,"dur":1},{"ph":"X","name":"b","pid":5,"tid":1,"ts":0,"dur":1}])"
        << "cpu 5/1: 0:b@0+1 | cpu 2/9 [main]: 0:a@0+1"
        << "";
    QTest::newRow("ac2g flow with bp e: launch to kernel")
        << R"([{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":0,"dur":5},{"ph":"s","cat":"ac2g","name":"ac2g","id":7,"pid":1,"tid":1,"ts":0},{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":10,"dur":2},{"ph":"f","cat":"ac2g","name":"ac2g","id":7,"pid":0,"tid":7,"ts":10,"bp":"e"}])"
        << "cpu 1/1: 0:cudaLaunchKernel@0+5 | gpu 0/7: 0:k@10+2 | flows: launch 1/1:cudaLaunchKernel->0/7:k"
        << "";
    QTest::newRow("flow ends bind past instants; one after its slice ended binds to nothing")
        << R"([{"ph":"X","cat":"cuda_runtime","name":"launch","pid":1,"tid":1,"ts":0,"dur":10},{"ph":"i","name":"m","pid":1,"tid":1,"ts":1,"s":"t"},{"ph":"i","name":"m","pid":1,"tid":1,"ts":2,"s":"t"},{"ph":"s","cat":"ac2g","name":"ac2g","id":1,"pid":1,"tid":1,"ts":5},{"ph":"i","name":"m","pid":1,"tid":1,"ts":20,"s":"t"},{"ph":"i","name":"m","pid":1,"tid":1,"ts":21,"s":"t"},{"ph":"s","cat":"ac2g","name":"ac2g","id":2,"pid":1,"tid":1,"ts":22},{"ph":"X","cat":"kernel","name":"k1","pid":0,"tid":7,"ts":30,"dur":2},{"ph":"f","cat":"ac2g","name":"ac2g","id":1,"pid":0,"tid":7,"ts":30,"bp":"e"},{"ph":"X","cat":"kernel","name":"k2","pid":0,"tid":7,"ts":40,"dur":2},{"ph":"f","cat":"ac2g","name":"ac2g","id":2,"pid":0,"tid":7,"ts":40,"bp":"e"}])"
        << "cpu 1/1: 0:launch@0+10 0:m@20 0:m@21 1:m@1 1:m@2 | gpu 0/7: 0:k1@30+2 0:k2@40+2 | flows: launch "
           "1/1:launch->0/7:k1"
        << "flows_unbound=1";
    QTest::newRow("flow end without bp e binds to the next slice")
        << R"([{"ph":"X","name":"src","pid":1,"tid":1,"ts":0,"dur":5},{"ph":"s","cat":"fwdbwd","name":"fwdbwd","id":1,"pid":1,"tid":1,"ts":1},{"ph":"f","cat":"fwdbwd","name":"fwdbwd","id":1,"pid":1,"tid":2,"ts":8},{"ph":"X","name":"dst","pid":1,"tid":2,"ts":9,"dur":1}])"
        << "cpu 1/1: 0:src@0+5 | cpu 1/2: 0:dst@9+1 | flows: fwdbwd 1/1:src->1/2:dst"
        << "";
    QTest::newRow("flow steps s t f chain")
        << R"([{"ph":"X","name":"a","pid":1,"tid":1,"ts":0,"dur":1},{"ph":"X","name":"b","pid":1,"tid":2,"ts":2,"dur":1},{"ph":"X","name":"c","pid":1,"tid":3,"ts":4,"dur":1},{"ph":"s","cat":"x","name":"x","id":"abc","pid":1,"tid":1,"ts":0},{"ph":"t","cat":"x","name":"x","id":"abc","pid":1,"tid":2,"ts":2},{"ph":"f","cat":"x","name":"x","id":"abc","pid":1,"tid":3,"ts":4,"bp":"e"}])"
        << "cpu 1/1: 0:a@0+1 | cpu 1/2: 0:b@2+1 | cpu 1/3: 0:c@4+1 | flows: other 1/1:a->1/2:b other "
           "1/2:b->1/3:c"
        << "";
    QTest::newRow("unmatched flow halves counted and dropped")
        << R"([{"ph":"X","name":"a","pid":1,"tid":1,"ts":0,"dur":1},{"ph":"s","cat":"ac2g","name":"ac2g","id":1,"pid":1,"tid":1,"ts":0},{"ph":"f","cat":"ac2g","name":"ac2g","id":2,"pid":1,"tid":1,"ts":0,"bp":"e"}])"
        << "cpu 1/1: 0:a@0+1"
        << "flow_starts_unmatched=1 flow_ends_unmatched=1";
    QTest::newRow("legacy categories and correlation without flow events")
        << R"([{"ph":"X","cat":"Runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":0,"dur":5,"args":{"correlation":42}},{"ph":"X","cat":"Kernel","name":"k","pid":0,"tid":"stream 7","ts":10,"dur":2,"args":{"correlation":42,"external id":3}}])"
        << "cpu 1/1: 0:cudaLaunchKernel@0+5 | gpu 0/stream 7: 0:k@10+2 | flows: launch "
           "1/1:cudaLaunchKernel->0/stream 7:k"
        << "";
    QTest::newRow("args before cat still give correlation")
        << R"([{"args":{"correlation":5},"ph":"X","cat":"cuda_runtime","name":"launch","pid":1,"tid":1,"ts":0,"dur":5},{"args":{"correlation":5},"ph":"X","cat":"KERNEL","name":"k","pid":0,"tid":7,"ts":10,"dur":2}])"
        << "cpu 1/1: 0:launch@0+5 | gpu 0/7: 0:k@10+2 | flows: launch 1/1:launch->0/7:k"
        << "";
    QTest::newRow("async b e n matched by id")
        << R"([{"ph":"b","cat":"req","name":"r1","id":1,"pid":1,"tid":1,"ts":0},{"ph":"b","cat":"req","name":"r2","id":2,"pid":1,"tid":1,"ts":1},{"ph":"e","cat":"req","name":"r1","id":1,"pid":1,"tid":1,"ts":5},{"ph":"n","cat":"req","name":"mark","id":2,"pid":1,"tid":1,"ts":2},{"ph":"e","cat":"req","name":"r2","id":2,"pid":1,"tid":1,"ts":3}])"
        << "async 1 [req]: 0:r1@0+5 1:r2@1+2 2:mark@2"
        << "";
    QTest::newRow("perfetto v2 flows via bind_id")
        << R"([{"ph":"X","name":"a","pid":1,"tid":1,"ts":0,"dur":1,"bind_id":9,"flow_out":true},{"ph":"X","name":"b","pid":1,"tid":2,"ts":3,"dur":1,"bind_id":9,"flow_in":true}])"
        << "cpu 1/1: 0:a@0+1 | cpu 1/2: 0:b@3+1 | flows: other 1/1:a->1/2:b"
        << "";
    QTest::newRow("unknown phases counted and skipped")
        << R"([{"ph":"P","name":"sample","pid":1,"tid":1,"ts":0},{"ph":"X","name":"a","pid":1,"tid":1,"ts":0,"dur":1}])"
        << "cpu 1/1: 0:a@0+1"
        << "unknown=1";
    QTest::newRow("a name containing },{ does not split an event")
        << R"([{"ph":"X","name":"x},{\"ph\":\"X\"},{","pid":1,"tid":1,"ts":0,"dur":1},{"ph":"X","name":"y","pid":1,"tid":1,"ts":2,"dur":1}])"
        << R"(cpu 1/1: 0:x},{"ph":"X"},{@0+1 0:y@2+1)"
        << "";
    QTest::newRow("keys after the event array")
        << R"({"traceEvents":[{"ph":"X","name":"a","pid":1,"tid":1,"ts":0,"dur":1}],"displayTimeUnit":"ns","baseTimeNanoseconds":1795236617046000123})"
        << "cpu 1/1: 0:a@0+1"
        << "";
}

// Each row loads whole, and split into tiny chunks on one and on two threads: the same store.
void TestTraceLoader::variants() {
    QFETCH(QString, json);
    QFETCH(QString, expected);
    QFETCH(QString, stats);
    const std::string text = json.toStdString();
    for (std::size_t chunk : {std::size_t(8u << 20), std::size_t(64)}) {
        for (unsigned threads : {1u, 2u}) {
            const LoadResult r = test::loadText(text, chunk, threads);
            QVERIFY2(r.ok(), r.error.c_str());
            QCOMPARE(QString::fromStdString(describe(*r.store)), expected);
            QCOMPARE(QString::fromStdString(counters(r.store->stats())), stats);
        }
    }
}

void TestTraceLoader::gzipVariants_data() {
    QTest::addColumn<int>("members");
    QTest::newRow("single member") << 1;
    QTest::newRow("multi-member") << 3;
}
void TestTraceLoader::gzipVariants() {
    QFETCH(int, members);
    const std::string json =
        R"({"traceEvents":[{"ph":"X","name":"a","pid":1,"tid":1,"ts":0,"dur":1},{"ph":"X","name":"b","pid":1,"tid":1,"ts":2,"dur":1}]})";
    const QString path =
        QDir::temp().filePath("kinetoscope-test-trace.json"); // name says json: sniffed anyway
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    const std::string gz = test::gzipText(json, members);
    f.write(gz.data(), qint64(gz.size()));
    f.close();
    const LoadResult r = loadTrace(path.toStdString());
    QVERIFY2(r.ok(), r.error.c_str());
    QVERIFY(r.store->stats().gzip);
    QCOMPARE(QString::fromStdString(describe(*r.store)), QString("cpu 1/1: 0:a@0+1 0:b@2+1"));
    QFile::remove(path);
}

void TestTraceLoader::gzipSizeGuesses_data() {
    QTest::addColumn<quint64>("text");         // the inflated size
    QTest::addColumn<quint64>("file");         // the compressed size
    QTest::addColumn<QList<quint64>>("tries"); // the room libdeflate is given, try by try
    // The bench's OWLv2 traces gzipped (-6 and -1): one try each; the 5 GB one took three before (1.9, 3.8,
    // 7.7 GB: the guess was four times the compressed size, then doubled).
    QTest::newRow("1 GB") << quint64(1030068896) << quint64(98142693) << QList<quint64>{1030068896};
    QTest::newRow("5 GB, past 4 GiB")
        << quint64(5036529066) << quint64(479444908) << QList<quint64>{5036529066};
    // Compressed fiftyfold: the trailer read as under 4 GiB first (a plausible 7x), then the next size it
    // allows.
    QTest::newRow("5 GB compressed 50x")
        << quint64(5036529066) << quint64(100000000) << QList<quint64>{741561770, 5036529066};
    // A small file compressed badly: four times its size, as before.
    QTest::newRow("150 MB compressed 1.5x")
        << quint64(150000000) << quint64(100000000) << QList<quint64>{400000000};
    QTest::newRow("tiny") << quint64(300) << quint64(200) << QList<quint64>{800};
}

// libdeflate inflates a member whole, from the start at each try: the trailer's size (modulo 4 GiB) makes the
// first try, or at most the second, big enough.
void TestTraceLoader::gzipSizeGuesses() {
    QFETCH(quint64, text);
    QFETCH(quint64, file);
    QFETCH(QList<quint64>, tries);
    const auto isize = std::uint32_t(text & 0xffffffffu);
    QList<quint64> made{gzipTextSizeGuess(isize, file)};
    while (made.back() < text && made.size() < 8)
        made << gzipTextSizeAfter(isize, made.back() + 4096);
    QCOMPARE(made, tries);
}

void TestTraceLoader::metadata() {
    const std::string json =
        R"({"schemaVersion":1,"deviceProperties":[{"id":0,"name":"NVIDIA H100","totalGlobalMem":85000000000,"computeMajor":9,"computeMinor":0,"numSms":132}],"distributedInfo":{"backend":"nccl","rank":3,"world_size":8},"traceEvents":[{"ph":"X","name":"a","pid":1,"tid":1,"ts":0,"dur":1}],"baseTimeNanoseconds":1795236617046000123,"custom":{"k":[1,2]}})";
    const LoadResult r = test::loadText(json);
    QVERIFY(r.ok());
    const TraceMetadata& m = r.store->metadata();
    QCOMPARE(m.schemaVersion.value_or(-1), 1);
    QCOMPARE(m.baseTimeNanoseconds.value_or(0), std::int64_t(1795236617046000123));
    QCOMPARE(m.devices.size(), std::size_t(1));
    QCOMPARE(QString::fromStdString(m.devices[0].name), QString("NVIDIA H100"));
    QCOMPARE(m.devices[0].numSms, std::int64_t(132));
    QCOMPARE(m.rank.value_or(-1), 3);
    QCOMPARE(m.worldSize.value_or(-1), 8);
    QVERIFY(m.find("custom") && *m.find("custom") == R"({"k":[1,2]})");
}

void TestTraceLoader::argsDecodedOnDemand() {
    const std::string json =
        R"([{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":0,"dur":1,"args":{"External id":12,"Input Dims":[[2,3],[3,4]],"Call stack":"a.py(1): f\nb.py(2): g","Big id":18446744073709551615}}])";
    const LoadResult r = test::loadText(json);
    QVERIFY(r.ok());
    const auto fields = decodeArgs(*r.store, {TrackId(0), EventIndex(0)});
    QCOMPARE(fields.size(), std::size_t(4));
    QCOMPARE(QString::fromStdString(fields[0].key), QString("External id"));
    QCOMPARE(QString::fromStdString(fields[0].value), QString("12"));
    QCOMPARE(QString::fromStdString(fields[1].value), QString("[[2,3],[3,4]]"));
    QVERIFY(fields[2].isString);
    QCOMPARE(QString::fromStdString(fields[2].value), QString("a.py(1): f\nb.py(2): g"));
    QCOMPARE(QString::fromStdString(fields[3].value), QString("18446744073709551615"));
    QCOMPARE(r.store->byExternalId().size(), std::size_t(1));
    QCOMPARE(r.store->byExternalId()[0].id, std::uint64_t(12));
}

void TestTraceLoader::gpuWorkOnly_data() {
    QTest::addColumn<QString>("json");
    QTest::addColumn<int>("kept");
    QTest::addColumn<int>("notKept");
    QTest::newRow("kernels kept, the launch and its flow not")
        << R"([{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":0,"dur":5,"args":{"correlation":7}},{"ph":"s","cat":"ac2g","name":"ac2g","id":7,"pid":1,"tid":1,"ts":0},{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":10,"dur":2,"args":{"correlation":7}},{"ph":"f","cat":"ac2g","name":"ac2g","id":7,"pid":0,"tid":7,"ts":10,"bp":"e"}])"
        << 1 << 1;
    QTest::newRow("instants, counters and async spans not kept, B/E kept")
        << R"([{"ph":"i","name":"m","pid":1,"tid":1,"ts":1},{"ph":"C","name":"mem","pid":3,"ts":1,"args":{"a":1}},{"ph":"b","cat":"req","name":"r","id":1,"pid":1,"tid":1,"ts":0},{"ph":"e","cat":"req","name":"r","id":1,"pid":1,"tid":1,"ts":5},{"ph":"B","name":"outer","pid":1,"tid":1,"ts":0},{"ph":"E","pid":1,"tid":1,"ts":4},{"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD","pid":0,"tid":7,"ts":1,"dur":1}])"
        << 2 << 0;
    QTest::newRow("a key written twice: the last cat makes it a kernel, the last name names it")
        << R"([{"ph":"X","name":"a","cat":"cpu_op","name":"b","cat":"kernel","pid":0,"tid":7,"ts":3,"dur":5}])"
        << 1 << 0;
    QTest::newRow("malformed events counted alike, kept or not")
        << R"([{"ph":"X","cat":"cpu_op","name":"op","pid":1,"tid":1,"ts":"x","dur":1},{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1,"dur":-1},{"ph":"X","cat":"cpu_op","name":"op","pid":1,"tid":1,"ts":1,"dur":1,"args":{"a":1,"b":}},{"ph":"b","cat":"req","name":"r","pid":1,"tid":1,"ts":0}])"
        << 0 << 1;
    QTest::newRow("Inductor's estimates on a launch: a full load")
        << R"([{"ph":"X","cat":"cpu_op","name":"triton_poi_0","pid":1,"tid":1,"ts":0,"dur":5,"args":{"kernel_num_gb":0.1}},{"ph":"X","cat":"kernel","name":"triton_poi_0","pid":0,"tid":7,"ts":10,"dur":2}])"
        << 2 << 0;
}

// A store of the GPU's work alone agrees with the full store of the same text (fuzz_input.h's check: the
// same counts by phase and category and malformed events, the same GPU work, every complete slice kept or
// counted), whole and in tiny chunks on two threads.
void TestTraceLoader::gpuWorkOnly() {
    QFETCH(QString, json);
    QFETCH(int, kept);
    QFETCH(int, notKept);
    const std::string text = json.toStdString();
    for (std::size_t chunk : {std::size_t(8u << 20), std::size_t(64)}) {
        const LoadResult full = test::loadText(text, chunk, 2);
        const LoadResult gpu = loadTraceText(text, test::gpuWorkOnlyOptions(2, chunk));
        QVERIFY(full.ok() && gpu.ok());
        QCOMPARE(fuzz::gpuWorkOnlyDiffers(*full.store, *gpu.store), 0);
        QCOMPARE(int(gpu.store->sliceCount()), kept);
        QCOMPARE(int(gpu.store->stats().slicesNotKept), notKept);
    }
}

// Over many pieces (the loader's smallest, 4 KiB) on two threads: without Inductor's estimates, only the
// GPU's work is kept and the store agrees with the full one; with them in a late piece, that piece's search
// makes it a full load, parsed again.
void TestTraceLoader::gpuWorkOnlyOverManyPieces() {
    for (const bool estimates : {false, true}) {
        std::string text = "[";
        for (int i = 0; i < 400; ++i)
            text += R"({"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":)" +
                    std::to_string(10 * i) + R"(,"dur":5,"args":{"External id":)" + std::to_string(i) + "}},";
        for (int i = 0; i < 50; ++i)
            text += R"({"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":)" +
                    std::to_string(10 * i + 1) + R"(,"dur":2},)";
        text +=
            estimates
                ? R"({"ph":"X","cat":"cpu_op","name":"triton_poi_0","pid":1,"tid":1,"ts":5000,"dur":5,"args":{"kernel_flop":7}}])"
                : R"({"ph":"X","cat":"cpu_op","name":"triton_poi_0","pid":1,"tid":1,"ts":5000,"dur":5}])";
        QVERIFY(text.size() > 8 * 4096);
        const LoadResult full = test::loadText(text, 4096, 2);
        const LoadResult gpu = loadTraceText(text, test::gpuWorkOnlyOptions(2, 4096));
        QVERIFY(full.ok() && gpu.ok());
        QCOMPARE(fuzz::gpuWorkOnlyDiffers(*full.store, *gpu.store), 0);
        QCOMPARE(gpu.store->stats().gpuWorkOnly, !estimates);
        QCOMPARE(gpu.store->sliceCount(), estimates ? full.store->sliceCount() : std::size_t(50));
        QCOMPARE(gpu.store->stats().slicesNotKept, estimates ? std::uint64_t(0) : std::uint64_t(401));
    }
}

QTEST_GUILESS_MAIN(TestTraceLoader)
#include "tst_traceloader.moc"
