// CUPTI activity records -> wire records, without a GPU: each record is built in memory in the struct version
// of the installed CUDA headers that the agent reads (CUpti_ActivityKernel10, Memcpy6, Memset4, API,
// Synchronization2, Marker2, ExternalCorrelation, Device5), handed to the converter the agent uses, and the
// wire records compared field by field. Built only where CMake finds CUPTI; the real-GPU check is
// tests/gpu/run.sh.
#include "cupticonvert.h"
#include "cuptisettings.h"

#include <QTest>

#include <cstring>
#include <map>

using namespace kinetoscope;
using namespace kinetoscope::capture;

namespace {
class Collect : public RecordSink {
  public:
    wire::StringRef string(std::string_view text) override {
        for (std::size_t i = 0; i < strings.size(); ++i)
            if (strings[i] == text) return wire::StringRef(i + 1);
        strings.emplace_back(text);
        return wire::StringRef(strings.size());
    }
    void add(const wire::Record& record) override { records.push_back(record); }
    QString text(wire::StringRef ref) const {
        return ref ? QString::fromStdString(strings[ref - 1]) : QString();
    }
    std::vector<std::string> strings;
    std::vector<wire::Record> records;
};

template <typename T> T zeroed(CUpti_ActivityKind kind) {
    T record;
    std::memset(static_cast<void*>(&record), 0, sizeof record);
    record.kind = kind;
    return record;
}

const CUpti_Activity& asActivity(const void* record) {
    return *static_cast<const CUpti_Activity*>(record);
}

CuptiRecordConverter converter() {
    static const std::map<std::pair<bool, std::uint32_t>, std::string> names = {
        {{false, 211}, "cudaLaunchKernel_v7000"},
        {{true, 307}, "cuLaunchKernel"},
        {{false, 41}, "cudaMemcpyAsync_v3020"}};
    return CuptiRecordConverter([](bool driver, std::uint32_t cbid) {
        const auto found = names.find({driver, cbid});
        return found == names.end() ? std::string() : found->second;
    });
}
} // namespace

class TestCuptiConvert : public QObject {
    Q_OBJECT
  private slots:
    void kernel();
    void copiesAndMemsets();
    void apiCalls();
    void synchronizationTakesTheContextsDevice();
    void markers();
    void externalCorrelationAndDevice();
    void otherKindsAreIgnored();
    void versionSuffix_data();
    void versionSuffix();
    void settingsFromEnvironment_data();
    void settingsFromEnvironment();
};

void TestCuptiConvert::kernel() {
    auto k = zeroed<CUpti_ActivityKernel10>(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    k.deviceId = 1;
    k.streamId = 7;
    k.contextId = 3;
    k.correlationId = 42;
    k.start = 1'000'000'123;
    k.end = 1'000'005'000;
    k.name = "_Z6scale2PfS_i";
    k.gridX = 120, k.gridY = 2, k.gridZ = 1;
    k.blockX = 256, k.blockY = 1, k.blockZ = 1;
    k.registersPerThread = 32;
    k.staticSharedMemory = 1024;
    k.dynamicSharedMemory = 4096;
    Collect sink;
    CuptiRecordConverter c = converter();
    c.convert(asActivity(&k), sink);
    QCOMPARE(sink.records.size(), std::size_t(1));
    const auto& out = std::get<wire::Kernel>(sink.records[0]);
    QCOMPARE(out.device, 1u);
    QCOMPARE(out.stream, 7u);
    QCOMPARE(out.correlation, std::uint64_t(42));
    QCOMPARE(out.start, std::int64_t(1'000'000'123));
    QCOMPARE(out.end, std::int64_t(1'000'005'000));
    QCOMPARE(sink.text(out.name), QString("scale2(float*, float*, int)")); // demangled, as Kineto shows it
    QCOMPARE(out.grid[0], 120u);
    QCOMPARE(out.grid[1], 2u);
    QCOMPARE(out.block[0], 256u);
    QCOMPARE(out.registers, 32u);
    QCOMPARE(out.staticShared, 1024u);
    QCOMPARE(out.dynamicShared, 4096u);
    // The legacy serial kind is read the same way.
    k.kind = CUPTI_ACTIVITY_KIND_KERNEL;
    c.convert(asActivity(&k), sink);
    QCOMPARE(sink.records.size(), std::size_t(2));
}

void TestCuptiConvert::copiesAndMemsets() {
    auto copy = zeroed<CUpti_ActivityMemcpy6>(CUPTI_ACTIVITY_KIND_MEMCPY);
    copy.deviceId = 0;
    copy.streamId = 13;
    copy.correlationId = 9;
    copy.start = 100;
    copy.end = 250;
    copy.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
    copy.bytes = 1 << 20;
    auto set = zeroed<CUpti_ActivityMemset4>(CUPTI_ACTIVITY_KIND_MEMSET);
    set.deviceId = 2;
    set.streamId = 14;
    set.correlationId = 10;
    set.start = 300;
    set.end = 310;
    set.bytes = 4096;
    Collect sink;
    CuptiRecordConverter c = converter();
    c.convert(asActivity(&copy), sink);
    c.convert(asActivity(&set), sink);
    QCOMPARE(sink.records.size(), std::size_t(2));
    const auto& m = std::get<wire::Memcpy>(sink.records[0]);
    QCOMPARE(m.stream, 13u);
    QCOMPARE(m.correlation, std::uint64_t(9));
    QCOMPARE(int(m.kind), int(CUPTI_ACTIVITY_MEMCPY_KIND_HTOD));
    QCOMPARE(m.bytes, std::uint64_t(1 << 20));
    QCOMPARE(m.end - m.start, std::int64_t(150));
    const auto& s = std::get<wire::Memset>(sink.records[1]);
    QCOMPARE(s.device, 2u);
    QCOMPARE(s.stream, 14u);
    QCOMPARE(s.bytes, std::uint64_t(4096));
}

void TestCuptiConvert::apiCalls() {
    auto runtime = zeroed<CUpti_ActivityAPI>(CUPTI_ACTIVITY_KIND_RUNTIME);
    runtime.cbid = 211;
    runtime.correlationId = 42;
    runtime.processId = 1234;
    runtime.threadId = 99;
    runtime.start = 10;
    runtime.end = 20;
    auto driver = runtime;
    driver.kind = CUPTI_ACTIVITY_KIND_DRIVER;
    driver.cbid = 307;
    auto unknown = runtime;
    unknown.cbid = 5000;
    Collect sink;
    CuptiRecordConverter c = converter();
    for (const auto* r : {&runtime, &driver, &unknown, &runtime})
        c.convert(asActivity(r), sink);
    QCOMPARE(sink.records.size(), std::size_t(4));
    const auto& a = std::get<wire::Api>(sink.records[0]);
    QCOMPARE(sink.text(a.name), QString("cudaLaunchKernel")); // the version suffix cut
    QCOMPARE(int(a.driver), 0);
    QCOMPARE(a.correlation, std::uint64_t(42));
    QCOMPARE(a.pid, 1234u);
    QCOMPARE(a.tid, std::uint64_t(99));
    QCOMPARE(sink.text(std::get<wire::Api>(sink.records[1]).name), QString("cuLaunchKernel"));
    QCOMPARE(int(std::get<wire::Api>(sink.records[1]).driver), 1);
    QCOMPARE(sink.text(std::get<wire::Api>(sink.records[2]).name), QString("runtime api 5000"));
}

void TestCuptiConvert::synchronizationTakesTheContextsDevice() {
    auto sync = zeroed<CUpti_ActivitySynchronization2>(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION);
    sync.contextId = 3;
    sync.streamId = CUPTI_SYNCHRONIZATION_INVALID_VALUE;
    sync.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE;
    sync.correlationId = 77;
    Collect sink;
    CuptiRecordConverter c = converter();
    c.convert(asActivity(&sync), sink); // before any kernel of context 3: device 0
    auto k = zeroed<CUpti_ActivityKernel10>(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    k.contextId = 3;
    k.deviceId = 5;
    k.name = "k";
    c.convert(asActivity(&k), sink);
    c.convert(asActivity(&sync), sink);
    QCOMPARE(sink.records.size(), std::size_t(3));
    QCOMPARE(std::get<wire::Sync>(sink.records[0]).device, 0u);
    QCOMPARE(std::get<wire::Sync>(sink.records[2]).device, 5u);
    QCOMPARE(std::get<wire::Sync>(sink.records[2]).stream,
             std::uint32_t(CUPTI_SYNCHRONIZATION_INVALID_VALUE));
    QCOMPARE(int(std::get<wire::Sync>(sink.records[2]).kind),
             int(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE));
    QCOMPARE(std::get<wire::Sync>(sink.records[2]).correlation, std::uint64_t(77));
}

void TestCuptiConvert::markers() {
    auto mark = zeroed<CUpti_ActivityMarker2>(CUPTI_ACTIVITY_KIND_MARKER);
    mark.flags = CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS;
    mark.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
    mark.objectId.pt.processId = 10;
    mark.objectId.pt.threadId = 11;
    mark.timestamp = 500;
    mark.name = "checkpoint";
    mark.id = 1;
    std::string rangeName = "forward";
    auto start = mark;
    start.flags = CUPTI_ACTIVITY_FLAG_MARKER_START;
    start.id = 2;
    start.timestamp = 600;
    start.name = rangeName.c_str();
    auto end = start;
    end.flags = CUPTI_ACTIVITY_FLAG_MARKER_END;
    end.timestamp = 900;
    end.name = nullptr; // CUPTI names the start record only
    auto orphanEnd = end;
    orphanEnd.id = 3;
    Collect sink;
    CuptiRecordConverter c = converter();
    c.convert(asActivity(&mark), sink);
    c.convert(asActivity(&start), sink);
    rangeName = "overwritten"; // the start's name pointer is not kept
    c.convert(asActivity(&end), sink);
    c.convert(asActivity(&orphanEnd), sink); // started before collection: nothing to show
    QCOMPARE(sink.records.size(), std::size_t(2));
    const auto& m = std::get<wire::Marker>(sink.records[0]);
    QCOMPARE(sink.text(m.name), QString("checkpoint"));
    QCOMPARE(m.start, m.end);
    QCOMPARE(m.pid, 10u);
    QCOMPARE(m.tid, std::uint64_t(11));
    const auto& r = std::get<wire::Marker>(sink.records[1]);
    QCOMPARE(sink.text(r.name), QString("forward"));
    QCOMPARE(r.start, std::int64_t(600));
    QCOMPARE(r.end, std::int64_t(900));
    // Ranges never ended stop being kept after maxOpenMarkers; the refused ones are counted as dropped.
    for (std::uint32_t i = 0; i < CuptiRecordConverter::maxOpenMarkers + 5; ++i) {
        auto open = start;
        open.id = 100 + i;
        c.convert(asActivity(&open), sink);
    }
    QCOMPARE(c.takeDropped(), std::uint64_t(5));
    QCOMPARE(c.takeDropped(), std::uint64_t(0));
}

void TestCuptiConvert::externalCorrelationAndDevice() {
    auto external = zeroed<CUpti_ActivityExternalCorrelation>(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION);
    external.correlationId = 42;
    external.externalId = 31337;
    auto device = zeroed<CUpti_ActivityDevice5>(CUPTI_ACTIVITY_KIND_DEVICE);
    device.id = 0;
    device.name = "NVIDIA H100 80GB HBM3";
    device.globalMemorySize = 85'000'000'000ull;
    device.computeCapabilityMajor = 9;
    device.computeCapabilityMinor = 0;
    device.numMultiprocessors = 132;
    device.numThreadsPerWarp = 32;
    device.maxWarpsPerMultiprocessor = 64;
    Collect sink;
    CuptiRecordConverter c = converter();
    c.convert(asActivity(&external), sink);
    c.convert(asActivity(&device), sink);
    QCOMPARE(sink.records.size(), std::size_t(2));
    QCOMPARE(std::get<wire::ExternalCorrelation>(sink.records[0]).externalId, std::uint64_t(31337));
    QCOMPARE(std::get<wire::ExternalCorrelation>(sink.records[0]).correlation, std::uint64_t(42));
    const auto& d = std::get<wire::Device>(sink.records[1]);
    QCOMPARE(sink.text(d.name), QString("NVIDIA H100 80GB HBM3"));
    QCOMPARE(d.totalGlobalMem, std::uint64_t(85'000'000'000ull));
    QCOMPARE(d.computeMajor, 9u);
    QCOMPARE(d.numSms, 132u);
    QCOMPARE(d.warpSize, 32u);
    QCOMPARE(d.maxThreadsPerSm, 2048u);
}

void TestCuptiConvert::otherKindsAreIgnored() {
    auto other = zeroed<CUpti_ActivityAPI>(CUPTI_ACTIVITY_KIND_OVERHEAD);
    Collect sink;
    CuptiRecordConverter c = converter();
    c.convert(asActivity(&other), sink);
    QVERIFY(sink.records.empty());
}

void TestCuptiConvert::versionSuffix_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("plain");
    QTest::newRow("runtime") << "cudaLaunchKernel_v7000"
                             << "cudaLaunchKernel";
    QTest::newRow("driver v2") << "cuMemcpyHtoD_v2"
                               << "cuMemcpyHtoD";
    QTest::newRow("no suffix") << "cuLaunchKernel"
                               << "cuLaunchKernel";
    QTest::newRow("not a version") << "cudaGraph_vLaunch"
                                   << "cudaGraph_vLaunch";
    QTest::newRow("bare _v") << "name_v"
                             << "name_v";
}

void TestCuptiConvert::versionSuffix() {
    QFETCH(QString, name);
    QFETCH(QString, plain);
    QCOMPARE(QString::fromStdString(CuptiRecordConverter::withoutVersionSuffix(name.toStdString())), plain);
}

// The agent's KINETOSCOPE_CUPTI_SKIP and KINETOSCOPE_CUPTI_THREAD_IDS (capture/cuptisettings.h): whole kind
// names only, spaces ignored.
void TestCuptiConvert::settingsFromEnvironment_data() {
    QTest::addColumn<QByteArray>("skip"); // "-": unset
    QTest::addColumn<QByteArray>("threadIds");
    QTest::addColumn<QStringList>("skipped");
    QTest::addColumn<QStringList>("kept");
    QTest::addColumn<bool>("systemThreadIds");
    const QStringList all{
        "CONCURRENT_KERNEL",    "MEMCPY", "MEMSET", "RUNTIME", "DRIVER", "SYNCHRONIZATION", "MARKER",
        "EXTERNAL_CORRELATION", "DEVICE"};
    QTest::newRow("unset") << QByteArray("-") << QByteArray("-") << QStringList{} << all << true;
    QTest::newRow("empty") << QByteArray("") << QByteArray("") << QStringList{} << all << true;
    QTest::newRow("one") << QByteArray("DRIVER") << QByteArray("-") << QStringList{"DRIVER"}
                         << QStringList{"RUNTIME", "MEMSET", "DEVICE"} << true;
    QTest::newRow("three, spaced") << QByteArray("SYNCHRONIZATION, MARKER ,DEVICE") << QByteArray("-")
                                   << QStringList{"SYNCHRONIZATION", "MARKER", "DEVICE"}
                                   << QStringList{"DRIVER", "MEMCPY"} << true;
    QTest::newRow("no part of a name") << QByteArray("MEM,KERNEL") << QByteArray("-") << QStringList{}
                                       << QStringList{"MEMCPY", "MEMSET", "CONCURRENT_KERNEL", ""} << true;
    QTest::newRow("pthread ids") << QByteArray("-") << QByteArray("pthread") << QStringList{} << all << false;
    QTest::newRow("other ids value") << QByteArray("-") << QByteArray("system") << QStringList{} << all
                                     << true;
}

void TestCuptiConvert::settingsFromEnvironment() {
    QFETCH(QByteArray, skip);
    QFETCH(QByteArray, threadIds);
    QFETCH(QStringList, skipped);
    QFETCH(QStringList, kept);
    const capture::CuptiSettings settings = capture::CuptiSettings::from(
        skip == "-" ? nullptr : skip.constData(), threadIds == "-" ? nullptr : threadIds.constData());
    for (const QString& kind : skipped)
        QVERIFY2(settings.skips(kind.toStdString()), qPrintable(kind));
    for (const QString& kind : kept)
        QVERIFY2(!settings.skips(kind.toStdString()), qPrintable(kind));
    QTEST(settings.systemThreadIds, "systemThreadIds");
    // The names as listed, for the notices about names no kind has.
    QStringList names;
    for (const std::string& name : settings.skippedKinds)
        names << QString::fromStdString(name);
    if (skip == "MEM,KERNEL")
        QCOMPARE(names, (QStringList{"MEM", "KERNEL"}));
    else
        QCOMPARE(names, skipped);
}

QTEST_GUILESS_MAIN(TestCuptiConvert)
#include "tst_cupticonvert.moc"
