// Perfetto protobuf traces (issue 63, part 2). On the real one of ../shared/traces/formats (a Perfetto SDK
// trace of an audio engine: 20,010 slices on one thread, names inline, four thread tracks and a process
// track): every slice, its thread, the named thread. On traces written here with Perfetto's field numbers
// (perfettotrace.proto), what no real file of ours shows yet: interned names and categories per sequence and
// their reset, every begin of a group before every end (PyTorch's writer), flows, counters, debug annotations
// as args, custom tracks, begins and ends that do not pair, a gzip-compressed file, a cut-short file.
#include "analysis/report/summaryformat.h"
#include "model/viewlink.h"
#include "open/opentrace.h"
#include "query/args.h"
#include "sql/tracedatabase.h"
#include "testsupport.h"

#include "perfettotrace.pb.h"

#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <map>
#include <optional>

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
    void pytorchGpuLayout();
    void clockSnapshots();
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
    // And the user is told: in the load's warnings (the CLI's and the viewer's banner) and the summary's run
    // header, naming the byte where the cut packet starts.
    const std::vector<std::string> notes = r.store->stats().conversionNotes;
    QCOMPARE(notes.size(), std::size_t(1));
    QVERIFY2(notes.front().find("the last packet is cut short") != std::string::npos, notes.front().c_str());
    const std::vector<std::string> warnings = loadWarnings(r.store->stats(), cut);
    QVERIFY(std::find(warnings.begin(), warnings.end(), cut + ": " + notes.front()) != warnings.end());
    const auto report = computeAnalysis(*r.store, std::nullopt, OperatorGrouping::Name, KernelGrouping::Name,
                                        ReportSections().set(std::size_t(ReportSection::Overview)));
    QVERIFY(summaryToJson(report->summary, report.get()).find("\"conversion_notes\": [\"" + notes.front()) !=
            std::string::npos);
    // Hostile: a packet whose repeated field claims a billion elements (a packed field's length of 10^9
    // bytes inside a packet of a few): the packet is refused whole, at once, allocating nothing for the
    // claim, and the packets around it load.
    {
        const auto varint = [](std::uint64_t v) {
            std::string out;
            for (; v > 0x7f; v >>= 7)
                out += char((v & 0x7f) | 0x80);
            return out + char(v);
        };
        const std::string field =
            std::string("\x1a") + varint(1'000'000'000) + "\x01\x02\x03";             // category_iids
        const std::string event = std::string("\x5a") + varint(field.size()) + field; // track_event
        const std::string hostile = std::string("\x0a") + varint(event.size()) + event;
        const std::string path = writeFile(dir, "billion.pftrace", hostile + b.bytes);
        LoadResult h = loadTrace(path);
        QVERIFY2(h.ok(), h.message(path).c_str());
        QCOMPARE(namesOf(*h.store).at("tick"), std::size_t(50));
        QCOMPARE(h.store->stats().conversionNotes.size(), std::size_t(1));
    }
    // Not a trace past its first byte: an error naming the file, no crash.
    const std::string junk =
        writeFile(dir, "junk.pftrace", std::string("\x0a\xff\xff\xff\xff\x0f garbage", 14));
    LoadResult j = loadTrace(junk);
    QVERIFY(!j.ok());
    QVERIFY2(j.message(junk).find("junk.pftrace") != std::string::npos, j.message(junk).c_str());
}

// PyTorch's .pftrace writer (torch/csrc/profiler/cuspy/cuspy_pftrace.cpp): gzip-compressed; names and
// categories interned; CPU ops and runtime calls as slices whose begins all come before their ends; kernels,
// copies and memsets as GPU render-stage events on hardware queues ("[0007] stream 7"), a launch naming the
// render-stage event ids it submitted (gpu_correlation); kernels with their grid, block and registers; GPU
// counters from an interned descriptor. No real file of it exists yet: this one is built to the encoder's
// layout.
void TestPerfettoImport::pytorchGpuLayout() {
    QTemporaryDir dir;
    TraceBuilder b;
    {
        pf::TracePacket& p = b.next();
        auto* d = p.mutable_track_descriptor();
        d->set_uuid(1);
        d->mutable_process()->set_pid(4242);
        d->mutable_process()->set_process_name("python");
        b.add(p);
    }
    {
        pf::TracePacket& p = b.next();
        auto* d = p.mutable_track_descriptor();
        d->set_uuid(2);
        d->set_parent_uuid(1);
        d->mutable_thread()->set_pid(4242);
        d->mutable_thread()->set_tid(4243);
        d->mutable_thread()->set_thread_name("python");
        b.add(p);
    }
    {
        pf::TracePacket& p = b.next();
        p.set_trusted_packet_sequence_id(1);
        p.set_sequence_flags(1);
        auto* d = p.mutable_interned_data();
        const char* names[] = {"aten::mm", "cudaLaunchKernel", "cudaMemcpyAsync", "ampere_sgemm_128x64_tn"};
        for (int i = 0; i < 4; ++i) {
            auto* n = d->add_event_names();
            n->set_iid(std::uint64_t(i + 1));
            n->set_name(names[i]);
        }
        for (const auto& [iid, name] : {std::pair{1, "cpu_op"}, std::pair{2, "cuda_runtime"}}) {
            auto* c = d->add_event_categories();
            c->set_iid(std::uint64_t(iid));
            c->set_name(name);
        }
        for (const auto& [iid, name] :
             {std::pair{1, "Kernel"}, std::pair{2, "Memcpy"}, std::pair{100, "[0007] stream 7"}}) {
            auto* s = d->add_gpu_specifications();
            s->set_iid(std::uint64_t(iid));
            s->set_name(name);
        }
        auto* k = d->add_compute_kernels();
        k->set_iid(1);
        k->set_demangled_name("ampere_sgemm_128x64_tn");
        for (const auto& [iid, name] :
             {std::pair{1, "registers_per_thread"}, std::pair{2, "shared_mem_dynamic"}}) {
            auto* a = d->add_compute_arg_names();
            a->set_iid(std::uint64_t(iid));
            a->set_name(name);
        }
        auto* c = d->add_gpu_counter_descriptors();
        c->set_iid(1);
        c->set_gpu_id(0);
        auto* spec = c->mutable_counter_descriptor()->add_specs();
        spec->set_counter_id(1);
        spec->set_name("SM Clock (MHz)");
        b.add(p);
    }
    // CPU: aten::mm over a kernel launch (its correlation annotated) and a copy (no annotation: the two are
    // joined by the ids it names). Begins first, then ends, as PyTorch writes a group.
    const auto slice = [&](std::uint64_t ts, std::uint64_t name, std::uint64_t category) -> pf::TracePacket& {
        pf::TracePacket& p = trackEvent(b, 1, ts, pf::TrackEvent::TYPE_SLICE_BEGIN, 2);
        p.set_sequence_flags(2);
        p.mutable_track_event()->set_name_iid(name);
        p.mutable_track_event()->add_category_iids(category);
        return p;
    };
    b.add(slice(1000, 1, 1));
    {
        pf::TracePacket& p = slice(2000, 2, 2);
        auto* a = p.mutable_track_event()->add_debug_annotations();
        a->set_name("correlation");
        a->set_int_value(11);
        p.mutable_track_event()->mutable_gpu_correlation()->add_render_stage_submission_event_ids(1);
        b.add(p);
    }
    {
        pf::TracePacket& p = slice(4000, 3, 2);
        p.mutable_track_event()->mutable_gpu_correlation()->add_render_stage_submission_event_ids(2);
        b.add(p);
    }
    for (const std::uint64_t end : {3000u, 5000u, 9000u})
        b.add(trackEvent(b, 1, end, pf::TrackEvent::TYPE_SLICE_END, 2));
    // GPU: the kernel (its own correlation in the extra data) and the copy (none: its launch's).
    {
        pf::TracePacket& p = b.next();
        p.set_trusted_packet_sequence_id(1);
        p.set_sequence_flags(2);
        p.set_timestamp(6000);
        auto* e = p.mutable_gpu_render_stage_event();
        e->set_event_id(1);
        e->set_duration(2500);
        e->set_gpu_id(0);
        e->set_hw_queue_iid(100);
        e->set_stage_iid(1);
        e->set_name_iid(4);
        e->set_kernel_iid(1);
        for (const auto& [name, value] :
             {std::pair{"device id", "0"}, std::pair{"stream id", "7"}, std::pair{"correlation", "11"},
              std::pair{"graph id", "3"}, std::pair{"arch", "sm_80"}}) {
            auto* x = e->add_extra_data();
            x->set_name(name);
            x->set_value(value);
        }
        auto* l = e->mutable_launch();
        l->mutable_grid_size()->set_x(4);
        l->mutable_grid_size()->set_y(1);
        l->mutable_grid_size()->set_z(1);
        l->mutable_workgroup_size()->set_x(128);
        l->mutable_workgroup_size()->set_y(1);
        l->mutable_workgroup_size()->set_z(1);
        for (const auto& [iid, value] : {std::pair{1u, 32u}, std::pair{2u, 1024u}}) {
            auto* a = l->add_args();
            a->set_name_iid(iid);
            a->set_uint_value(value);
        }
        b.add(p);
    }
    {
        pf::TracePacket& p = b.next();
        p.set_trusted_packet_sequence_id(1);
        p.set_sequence_flags(2);
        p.set_timestamp(5500);
        auto* e = p.mutable_gpu_render_stage_event();
        e->set_event_id(2);
        e->set_duration(300);
        e->set_gpu_id(0);
        e->set_hw_queue_iid(100);
        e->set_stage_iid(2);
        auto* x = e->add_extra_data();
        x->set_name("bytes");
        x->set_value("4096");
        b.add(p);
    }
    for (const auto& [ts, mhz] : {std::pair{1000u, 1410}, std::pair{8000u, 1395}}) {
        pf::TracePacket& p = b.next();
        p.set_trusted_packet_sequence_id(1);
        p.set_sequence_flags(2);
        p.set_timestamp(ts);
        auto* c = p.mutable_gpu_counter_event();
        c->set_counter_descriptor_iid(1);
        auto* v = c->add_counters();
        v->set_counter_id(1);
        v->set_int_value(mhz);
        b.add(p);
    }
    const std::string path = writeFile(dir, "run.pftrace", test::gzipText(b.bytes));
    LoadResult r = loadTrace(path);
    QVERIFY2(r.ok(), r.message(path).c_str());
    const TraceStore& s = *r.store;
    for (const std::string& note : s.stats().conversionNotes)
        QFAIL(note.c_str()); // everything read
    sql::TraceDatabase db(s);
    const auto kernel = db.query("SELECT name, dur, device, stream, grid_x, block_x, registers_per_thread, "
                                 "shared_memory, launch_id, operator_id, id FROM kernel");
    QVERIFY2(kernel.ok(), kernel.error.c_str());
    QCOMPARE(kernel.rows.size(), std::size_t(1));
    const auto& k = kernel.rows[0];
    QCOMPARE(std::get<std::string>(k[0]), std::string("ampere_sgemm_128x64_tn"));
    QCOMPARE(std::get<std::int64_t>(k[1]), std::int64_t(2500));
    QCOMPARE(std::get<std::int64_t>(k[2]), std::int64_t(0));
    QCOMPARE(std::get<std::int64_t>(k[3]), std::int64_t(7));
    QCOMPARE(std::get<std::int64_t>(k[4]), std::int64_t(4));
    QCOMPARE(std::get<std::int64_t>(k[5]), std::int64_t(128));
    QCOMPARE(std::get<std::int64_t>(k[6]), std::int64_t(32));
    QCOMPARE(std::get<std::int64_t>(k[7]), std::int64_t(1024));
    const auto nameOf = [&](const sql::Value& id) {
        const auto n = db.query("SELECT name FROM slice WHERE id = :id", {{"id", id}});
        return n.rows.empty() ? std::string() : std::get<std::string>(n.rows[0][0]);
    };
    QCOMPARE(nameOf(k[8]), std::string("cudaLaunchKernel")); // the launch that names it
    QCOMPARE(nameOf(k[9]), std::string("aten::mm"));
    const auto graph =
        db.query("SELECT int_value FROM args WHERE arg_set_id = (SELECT arg_set_id FROM slice WHERE "
                 "id = :id) AND key = 'graph id'",
                 {{"id", k[10]}});
    QCOMPARE(graph.rows.size(), std::size_t(1));
    QCOMPARE(std::get<std::int64_t>(graph.rows[0][0]), std::int64_t(3));
    // The copy, on the same stream, joined to its launch by the ids the launch named.
    const auto copy =
        db.query("SELECT s.id, t.name FROM slice s JOIN track t ON t.id = s.track_id WHERE s.category = "
                 "'gpu_memcpy'");
    QCOMPARE(copy.rows.size(), std::size_t(1));
    const auto ref = sliceOfId(s, std::get<std::int64_t>(copy.rows[0][0]));
    const auto launch = s.launchOf(*ref);
    QVERIFY(launch);
    QCOMPARE(std::string(s.nameOf(*launch)), std::string("cudaMemcpyAsync"));
    QVERIFY(std::get<std::string>(copy.rows[0][1]).find("stream 7") != std::string::npos);
    // The CPU slices nest (their ends came after every begin), and the GPU's clock counter has its samples.
    QCOMPARE(namesOf(s).at("aten::mm"), std::size_t(1));
    const auto counter =
        db.query("SELECT count(*) FROM counter c JOIN track t ON t.id = c.track_id WHERE t.name "
                 "LIKE '%SM Clock%'");
    QCOMPARE(std::get<std::int64_t>(counter.rows[0][0]), std::int64_t(2));
}

// Timestamps on other clocks: mapped onto the trace's (BOOTTIME) through the clock snapshots, a sequence's
// own clock (id 64 and up) through its sequence's; one no snapshot maps is taken as it is, and said.
void TestPerfettoImport::clockSnapshots() {
    QTemporaryDir dir;
    TraceBuilder b;
    describeThread(b, 10, 1, 2, "t");
    {
        pf::TracePacket& p = b.next();
        p.set_trusted_packet_sequence_id(7);
        for (const auto& [clock, ts] :
             {std::pair{6u, 1000000ull}, std::pair{1u, 5000000ull}, std::pair{64u, 300ull}}) {
            auto* c = p.mutable_clock_snapshot()->add_clocks();
            c->set_clock_id(clock);
            c->set_timestamp(ts);
        }
        b.add(p);
    }
    const auto instant = [&](const char* name, std::uint64_t ts, std::optional<std::uint32_t> clock) {
        pf::TracePacket& p = trackEvent(b, 7, ts, pf::TrackEvent::TYPE_INSTANT, 10);
        p.mutable_track_event()->set_name(name);
        if (clock) p.set_timestamp_clock_id(*clock);
        b.add(p);
    };
    instant("realtime", 5000500, 1u);    // 500 ns after the snapshot, on REALTIME
    instant("sequence clock", 800, 64u); // 500 ns after it, on the sequence's own clock
    instant("boottime", 1000700, std::nullopt);
    instant("unmapped", 42, 3u); // MONOTONIC: no snapshot names it
    const std::string path = writeFile(dir, "clocks.pftrace", b.bytes);
    LoadResult r = loadTrace(path);
    QVERIFY2(r.ok(), r.message(path).c_str());
    std::map<std::string, TimeNs> at;
    for (const Track& t : r.store->tracks())
        for (std::size_t i = 0; i < t.sliceCount(); ++i)
            at[std::string(r.store->strings().view(t.names[i]))] = t.starts[i];
    QCOMPARE(at.at("realtime"), TimeNs(1000500));
    QCOMPARE(at.at("sequence clock"), TimeNs(1000500));
    QCOMPARE(at.at("boottime"), TimeNs(1000700));
    QCOMPARE(at.at("unmapped"), TimeNs(42));
    const auto& notes = r.store->stats().conversionNotes;
    QVERIFY(std::any_of(notes.begin(), notes.end(), [](const std::string& n) {
        return n == "1 events on a clock no snapshot maps to the trace's, taken as they are";
    }));
}

QTEST_MAIN(TestPerfettoImport)
#include "tst_perfettoimport.moc"
