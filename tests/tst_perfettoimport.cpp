// Perfetto protobuf traces (issue 63, part 2). On the real one of ../shared/traces/formats (a Perfetto SDK
// trace of an audio engine: 20,010 slices on one thread, names inline, four thread tracks and a process
// track): every slice, its thread, the named thread. On traces written here with Perfetto's field numbers
// (perfettotrace.proto), what no real file of ours shows yet: interned names and categories per sequence and
// their reset, every begin of a group before every end (PyTorch's writer), flows, counters, debug annotations
// as args, custom tracks, begins and ends that do not pair, a gzip-compressed file, a cut-short file.
#include "open/opentrace.h"
#include "query/args.h"
#include "testsupport.h"

#include "perfettotrace.pb.h"

#include <QTemporaryDir>
#include <QTest>

#include <map>

using namespace kinetoscope;
namespace pf = kinetoscope::perfetto;

namespace {

std::map<std::string, std::size_t> namesOf(const TraceStore& s) {
    std::map<std::string, std::size_t> n;
    for (const Track& t : s.tracks())
        for (StringId id : t.names)
            ++n[std::string(s.strings().view(id))];
    return n;
}

// A trace as Perfetto writes one: each packet a length-delimited field 1.
struct TraceBuilder {
    std::string bytes;
    void add(const pf::TracePacket& p) {
        pf::Trace t;
        t.add_packet(p.SerializeAsString());
        bytes += t.SerializeAsString();
    }
    pf::TracePacket& next() {
        packet.Clear();
        return packet;
    }
    pf::TracePacket packet;
};

void describeThread(TraceBuilder& b, std::uint64_t uuid, int pid, int tid, const char* name) {
    pf::TracePacket& p = b.next();
    auto* d = p.mutable_track_descriptor();
    d->set_uuid(uuid);
    d->mutable_thread()->set_pid(pid);
    d->mutable_thread()->set_tid(tid);
    d->mutable_thread()->set_thread_name(name);
    b.add(p);
}

pf::TracePacket& trackEvent(TraceBuilder& b, std::uint32_t sequence, std::uint64_t ts,
                            pf::TrackEvent::Type type, std::uint64_t track) {
    pf::TracePacket& p = b.next();
    p.set_trusted_packet_sequence_id(sequence);
    p.set_timestamp(ts);
    p.mutable_track_event()->set_type(type);
    p.mutable_track_event()->set_track_uuid(track);
    return p;
}

std::string writeFile(const QTemporaryDir& dir, const char* name, const std::string& bytes) {
    const std::string path = dir.filePath(QString::fromLatin1(name)).toStdString();
    FILE* f = std::fopen(path.c_str(), "wb");
    std::fwrite(bytes.data(), 1, bytes.size(), f);
    std::fclose(f);
    return path;
}

} // namespace

class TestPerfettoImport : public QObject {
    Q_OBJECT
  private slots:
    void realTrace();
    void whatPyTorchAndTheSdkWrite();
    void damagedTraces();
};

void TestPerfettoImport::realTrace() {
    const std::string path = test::tracePath("formats/vospascal__atrium__trace.pftrace");
    LoadResult r = loadTrace(path);
    QVERIFY2(r.ok(), r.message(path).c_str());
    const TraceStore& s = *r.store;
    QCOMPARE(s.stats().sourceFormat, std::string("perfetto"));
    std::size_t slices = 0, instants = 0, threads = 0;
    bool mainNamed = false;
    for (const Track& t : s.tracks()) {
        threads += t.kind == TrackKind::CpuThread;
        mainNamed = mainNamed || s.strings().view(t.name) == "main";
        for (std::uint32_t i = 0; i < t.sliceCount(); ++i) {
            (t.flags[i] & SliceFlag::Instant ? instants : slices) += 1;
            QVERIFY(!s.strings().view(t.names[i]).empty());
        }
    }
    QCOMPARE(slices, std::size_t(20010));
    QCOMPARE(threads, std::size_t(4));
    QVERIFY(mainNamed);
    QVERIFY(instants > 0);
    const auto names = namesOf(s);
    QCOMPARE(names.at("source_render"), std::size_t(2070));
    QCOMPARE(names.at("mix_source"), std::size_t(2070));
}

void TestPerfettoImport::whatPyTorchAndTheSdkWrite() {
    TraceBuilder b;
    describeThread(b, 10, 100, 101, "python");
    {
        pf::TracePacket& p = b.next();
        p.mutable_track_descriptor()->set_uuid(20);
        p.mutable_track_descriptor()->set_parent_uuid(10);
        p.mutable_track_descriptor()->set_name("stream 7");
        b.add(p);
        pf::TracePacket& c = b.next();
        c.mutable_track_descriptor()->set_uuid(30);
        c.mutable_track_descriptor()->set_name("queue depth");
        c.mutable_track_descriptor()->mutable_counter();
        b.add(c);
    }
    // Sequence 1 interns its names and categories, then clears its state and interns others under the same
    // ids.
    {
        pf::TracePacket& p = trackEvent(b, 1, 1000, pf::TrackEvent::TYPE_SLICE_BEGIN, 10);
        p.set_sequence_flags(1);
        auto* d = p.mutable_interned_data();
        auto* n = d->add_event_names();
        n->set_iid(1);
        n->set_name("aten::mm");
        auto* c = d->add_event_categories();
        c->set_iid(1);
        c->set_name("cpu_op");
        auto* a = d->add_debug_annotation_names();
        a->set_iid(1);
        a->set_name("Input Dims");
        p.mutable_track_event()->set_name_iid(1);
        p.mutable_track_event()->add_category_iids(1);
        auto* arg = p.mutable_track_event()->add_debug_annotations();
        arg->set_name_iid(1);
        arg->set_legacy_json_value("[[2, 3], [3, 4]]");
        auto* seqArg = p.mutable_track_event()->add_debug_annotations();
        seqArg->set_name("Sequence number");
        seqArg->set_int_value(42);
        p.mutable_track_event()->add_flow_ids(77);
        b.add(p);
    }
    // Every begin of a group, then every end (out of nesting order in the file).
    {
        pf::TracePacket& p = trackEvent(b, 1, 1100, pf::TrackEvent::TYPE_SLICE_BEGIN, 10);
        p.mutable_track_event()->set_name("aten::matmul_inner");
        b.add(p);
        b.add(trackEvent(b, 1, 1900, pf::TrackEvent::TYPE_SLICE_END, 10));
        b.add(trackEvent(b, 1, 2000, pf::TrackEvent::TYPE_SLICE_END, 10));
    }
    // GPU work on a custom track: the flow ends on it.
    {
        pf::TracePacket& p = trackEvent(b, 2, 2500, pf::TrackEvent::TYPE_SLICE_BEGIN, 20);
        p.mutable_track_event()->set_name("gemm_kernel");
        p.mutable_track_event()->add_categories("kernel");
        p.mutable_track_event()->add_terminating_flow_ids(77);
        b.add(p);
        b.add(trackEvent(b, 2, 4500, pf::TrackEvent::TYPE_SLICE_END, 20));
    }
    // The state cleared: id 1 now names another event.
    {
        pf::TracePacket& p = trackEvent(b, 1, 5000, pf::TrackEvent::TYPE_INSTANT, 10);
        p.set_sequence_flags(1);
        auto* n = p.mutable_interned_data()->add_event_names();
        n->set_iid(1);
        n->set_name("checkpoint");
        p.mutable_track_event()->set_name_iid(1);
        b.add(p);
    }
    for (int i = 0; i < 3; ++i) {
        pf::TracePacket& p =
            trackEvent(b, 3, 1000 + 1000 * std::uint64_t(i), pf::TrackEvent::TYPE_COUNTER, 30);
        p.mutable_track_event()->set_counter_value(i * 5);
        b.add(p);
    }
    // A begin that never ends, an end that never began.
    {
        pf::TracePacket& p = trackEvent(b, 1, 6000, pf::TrackEvent::TYPE_SLICE_BEGIN, 10);
        p.mutable_track_event()->set_name("unfinished");
        b.add(p);
        b.add(trackEvent(b, 2, 7000, pf::TrackEvent::TYPE_SLICE_END, 20));
    }

    QTemporaryDir dir;
    for (const bool gzip : {false, true}) {
        const std::string path =
            writeFile(dir, gzip ? "t.pftrace.gz" : "t.pftrace", gzip ? test::gzipText(b.bytes) : b.bytes);
        LoadResult r = loadTrace(path);
        QVERIFY2(r.ok(), r.message(path).c_str());
        const TraceStore& s = *r.store;
        const auto names = namesOf(s);
        QCOMPARE(names.count("aten::mm"), std::size_t(1));
        QCOMPARE(names.count("checkpoint"), std::size_t(1));
        QCOMPARE(names.count("unfinished"), std::size_t(0));
        // The inner slice nests in aten::mm although its begin came after mm's and both ends came later.
        EventRef mm, inner, kernel;
        for (std::uint32_t t = 0; t < s.tracks().size(); ++t)
            for (std::uint32_t i = 0; i < s.tracks()[t].sliceCount(); ++i) {
                const std::string_view name = s.nameOf({TrackId(t), EventIndex(i)});
                if (name == "aten::mm") mm = {TrackId(t), EventIndex(i)};
                if (name == "aten::matmul_inner") inner = {TrackId(t), EventIndex(i)};
                if (name == "gemm_kernel") kernel = {TrackId(t), EventIndex(i)};
            }
        QVERIFY(mm.isValid() && inner.isValid() && kernel.isValid());
        QCOMPARE(s.durationOf(mm), TimeNs(1000));
        QCOMPARE(s.durationOf(inner), TimeNs(800));
        QCOMPARE(s.track(inner.track).parentOf(inner.index.value),
                 std::optional<std::uint32_t>(mm.index.value));
        QCOMPARE(s.categoryOf(mm).kind, CategoryKind::CpuOp);
        QCOMPARE(s.categoryOf(kernel).kind, CategoryKind::Kernel);
        QCOMPARE(s.track(mm.track).tid, std::int64_t(101));
        QCOMPARE(s.strings().view(s.track(mm.track).name), std::string_view("python"));
        // Args from the annotations, by their interned and inline names.
        std::map<std::string, std::string> args;
        for (const ArgField& f : decodeArgs(s, mm))
            args[f.key] = f.value;
        QCOMPARE(args["Input Dims"], std::string("[[2,3],[3,4]]"));
        QCOMPARE(args["Sequence number"], std::string("42"));
        // The flow from mm to the kernel on its custom track.
        QCOMPARE(s.flowsFrom(mm).size(), std::size_t(1));
        QCOMPARE(s.flowsFrom(mm)[0]->target, kernel);
        // The counter's samples.
        std::size_t samples = 0;
        for (const Track& t : s.tracks())
            if (t.kind == TrackKind::Counter) samples += t.counterTimes.size();
        QCOMPARE(samples, std::size_t(3));
        QCOMPARE(s.stats().sourceFormat, std::string("perfetto"));
    }
}

void TestPerfettoImport::damagedTraces() {
    QTemporaryDir dir;
    TraceBuilder b;
    describeThread(b, 10, 1, 2, "t");
    for (int i = 0; i < 50; ++i) {
        pf::TracePacket& p =
            trackEvent(b, 1, 1000 + std::uint64_t(i) * 100, pf::TrackEvent::TYPE_INSTANT, 10);
        p.mutable_track_event()->set_name("tick");
        b.add(p);
    }
    // Cut in the middle of a packet: the packets before it load.
    const std::string cut = writeFile(dir, "cut.pftrace", b.bytes.substr(0, b.bytes.size() - 7));
    LoadResult r = loadTrace(cut);
    QVERIFY2(r.ok(), r.message(cut).c_str());
    QCOMPARE(namesOf(*r.store).at("tick"), std::size_t(49));
    // Not a trace past its first byte: an error naming the file, no crash.
    const std::string junk =
        writeFile(dir, "junk.pftrace", std::string("\x0a\xff\xff\xff\xff\x0f garbage", 14));
    LoadResult j = loadTrace(junk);
    QVERIFY(!j.ok());
    QVERIFY2(j.message(junk).find("junk.pftrace") != std::string::npos, j.message(junk).c_str());
}

QTEST_MAIN(TestPerfettoImport)
#include "tst_perfettoimport.moc"
