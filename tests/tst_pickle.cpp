// The safe pickle reader: every opcode of the plain-container subset, memo sharing, and the refusals and
// errors (with their byte offsets) for everything that would import or call, for truncated and corrupt data.
// Each pickle below is what Python 3's pickle.dumps writes (or that, cut or altered), spelled out in bytes.
#include "testsupport.h"

#include "snapshot/pickleinput.h"
#include "snapshot/picklereader.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace kinetoscope;

class TestPickle : public QObject {
    Q_OBJECT
  private slots:
    void reads_data();
    void reads();
    void refuses_data();
    void refuses();
    void memoSharesNodes();
    void sharesEqualItems();
    void streamsInSmallWindows();
    void cutDocuments_data();
    void cutDocuments();
    void cancels();
};

namespace {

// Python's repr of the value, enough to compare.
std::string repr(const PickleDocument& d, std::uint32_t n, int depth = 0) {
    if (depth > 20) return "...";
    const PickleNode& node = d.node(n);
    switch (node.kind) {
    case PickleKind::None:
        return "None";
    case PickleKind::Bool:
        return node.integer ? "True" : "False";
    case PickleKind::Int:
        return std::to_string(node.integer);
    case PickleKind::Float: {
        char b[32];
        std::snprintf(b, sizeof b, "%g", node.real);
        return b;
    }
    case PickleKind::String:
        return "'" + std::string(d.textOf(n)) + "'";
    case PickleKind::Bytes:
        return "b'" + std::string(d.textOf(n)) + "'";
    default:
        break;
    }
    const char* open = node.kind == PickleKind::Dict ? "{" : node.kind == PickleKind::List ? "[" : "(";
    const char* close = node.kind == PickleKind::Dict ? "}" : node.kind == PickleKind::List ? "]" : ")";
    std::string out = node.kind == PickleKind::Set ? "set(" : open;
    bool first = true;
    if (node.kind == PickleKind::Dict) {
        d.forEachPair(n, [&](std::uint32_t k, std::uint32_t v) {
            out += (first ? "" : ", ") + repr(d, k, depth + 1) + ": " + repr(d, v, depth + 1);
            first = false;
        });
    } else {
        d.forEachItem(n, [&](std::uint32_t v) {
            out += (first ? "" : ", ") + repr(d, v, depth + 1);
            first = false;
        });
    }
    return out + (node.kind == PickleKind::Set ? ")" : close);
}

std::string read(const QByteArray& bytes, std::size_t* nodes = nullptr) {
    PickleInput in = PickleInput::fromMemory(std::string_view(bytes.constData(), std::size_t(bytes.size())));
    PickleDocument doc;
    if (auto e = readPickle(in, doc)) return "byte " + std::to_string(e->offset) + ": " + e->message;
    if (nodes) *nodes = doc.nodes.size();
    return repr(doc, doc.root);
}

QByteArray bytes(const char* data, std::size_t n) {
    return QByteArray(data, qsizetype(n));
}
#define PICKLE(literal) bytes(literal, sizeof(literal) - 1)

} // namespace

void TestPickle::reads_data() {
    QTest::addColumn<QByteArray>("pickle");
    QTest::addColumn<QString>("expected");
    // pickle.dumps({'a': 1, 'b': [1, 2]}, protocol=2)
    QTest::newRow("protocol 2: dict, list, BINPUT") << PICKLE("\x80\x02}q\x00(X\x01\x00\x00\x00"
                                                              "aq\x01K\x01X\x01\x00\x00\x00"
                                                              "bq\x02]q\x03(K\x01K\x02"
                                                              "eu.")
                                                    << "{'a': 1, 'b': [1, 2]}";
    // pickle.dumps([None, True, False, -3, 70000, 2**40, -2**40, 1.5, (), (1, 2), b'xy'], protocol=4)
    QTest::newRow("protocol 4: scalars, tuples, bytes, FRAME, MEMOIZE")
        << PICKLE("\x80\x04\x95\x3b\x00\x00\x00\x00\x00\x00\x00]\x94(N\x88\x89J\xfd\xff\xff\xffJp\x11\x01\x00"
                  "\x8a\x06\x00\x00\x00\x00\x00\x01\x8a\x06\x00\x00\x00\x00\x00\xffG?"
                  "\xf8\x00\x00\x00\x00\x00\x00)"
                  "K\x01K\x02\x86\x94"
                  "C\x02xy\x94"
                  "e.")
        << "[None, True, False, -3, 70000, 1099511627776, -1099511627776, 1.5, (), (1, 2), b'xy']";
    // 2**64 - 1 (the unwinder's unsigned -1 for an unknown line) keeps its 64 bits.
    QTest::newRow("LONG1 of 9 bytes: 2**64 - 1 reads as -1")
        << PICKLE("\x80\x04\x8a\x09\xff\xff\xff\xff\xff\xff\xff\xff\x00.") << "-1";
    QTest::newRow("LONG1 of 0 bytes is 0") << PICKLE("\x80\x04\x8a\x00.") << "0";
    QTest::newRow("LONG4") << PICKLE("\x80\x04\x8b\x02\x00\x00\x00\x00\x01.") << "256";
    // Lists of more than 1000 items come in several APPENDS batches; here two, and a SETITEM and an APPEND.
    QTest::newRow("items in batches") << PICKLE("\x80\x04](K\x01K\x02"
                                                "e(K\x03"
                                                "eK\x04"
                                                "a}K\x05K\x06s\x86.")
                                      << "([1, 2, 3, 4], {5: 6})";
    QTest::newRow("sets and frozensets")
        << PICKLE("\x80\x04\x8f\x94(K\x01K\x02\x90(K\x03\x91\x86.") << "(set(1, 2), set(3))";
    QTest::newRow("BINUNICODE8, BINBYTES8, SHORT_BINSTRING")
        << PICKLE("\x80\x04\x8d\x02\x00\x00\x00\x00\x00\x00\x00hi\x8e\x01\x00\x00\x00\x00\x00\x00\x00zU\x01q"
                  "\x87.")
        << "('hi', b'z', 'q')";
    QTest::newRow("POP, POP_MARK, DUP") << PICKLE("\x80\x04K\x01K\x02"
                                                  "0(K\x03K\x04"
                                                  "1K\x05"
                                                  "2\x87.")
                                        << "(1, 5, 5)";
}

void TestPickle::reads() {
    QFETCH(QByteArray, pickle);
    QFETCH(QString, expected);
    QCOMPARE(QString::fromStdString(read(pickle)), expected);
}

void TestPickle::refuses_data() {
    QTest::addColumn<QByteArray>("pickle");
    QTest::addColumn<QString>("error");
    // pickle.dumps(Evil(), protocol=2) where Evil.__reduce__ returns (os.system, ('touch ...',)).
    QTest::newRow("GLOBAL then REDUCE (os.system), protocol 2")
        << PICKLE("\x80\x02]q\x00"
                  "cposix\nsystem\nq\x01X\x02\x00\x00\x00idq\x02\x85q\x03Rq\x04"
                  "a.")
        << "byte 5: refused opcode GLOBAL (imports a Python object)";
    QTest::newRow("STACK_GLOBAL, protocol 4")
        << PICKLE("\x80\x04\x8c\x05posix\x94\x8c\x06system\x94\x93\x94.")
        << "byte 19: refused opcode STACK_GLOBAL (imports a Python object)";
    QTest::newRow("REDUCE") << PICKLE("\x80\x04N)R.")
                            << "byte 4: refused opcode REDUCE (calls a Python object)";
    QTest::newRow("BUILD") << PICKLE("\x80\x04}}b.") << "byte 4: refused opcode BUILD (calls __setstate__)";
    QTest::newRow("INST") << PICKLE("\x80\x04(ios\nsystem\n.") << "byte 3: refused opcode INST";
    QTest::newRow("OBJ") << PICKLE("\x80\x04(No.") << "byte 4: refused opcode OBJ (calls a class)";
    QTest::newRow("NEWOBJ") << PICKLE("\x80\x04N)\x81.") << "byte 4: refused opcode NEWOBJ (calls a class)";
    QTest::newRow("NEWOBJ_EX") << PICKLE("\x80\x04N)}\x92.") << "byte 5: refused opcode NEWOBJ_EX";
    QTest::newRow("EXT1") << PICKLE("\x80\x04\x82\x01.") << "byte 2: refused opcode EXT";
    QTest::newRow("PERSID") << PICKLE("\x80\x04Pid\n.") << "byte 2: refused opcode PERSID";
    QTest::newRow("BINPERSID") << PICKLE("\x80\x04NQ.") << "byte 3: refused opcode PERSID";
    QTest::newRow("NEXT_BUFFER") << PICKLE("\x80\x05\x97.") << "byte 2: refused opcode NEXT_BUFFER";
    QTest::newRow("protocol 0 text") << PICKLE("(lp0\nI1\na.")
                                     << "byte 2: unknown or unsupported opcode 0x70";
    QTest::newRow("protocol 6") << PICKLE("\x80\x06N.") << "byte 0: pickle protocol 6 (2 to 5 are read)";
    QTest::newRow("empty file") << QByteArray() << "byte 0: empty file";
    QTest::newRow("cut before STOP") << PICKLE("\x80\x04]K\x01"
                                               "a")
                                     << "byte 6: truncated: no STOP opcode";
    QTest::newRow("string running past the end")
        << PICKLE("\x80\x04\x8c\x10"
                  "abc")
        << "byte 2: truncated: a string of 16 bytes runs past the end";
    QTest::newRow("BINUNICODE length of 4 GiB")
        << PICKLE("\x80\x04X\xff\xff\xff\xff")
        << "byte 2: truncated: a string of 4294967295 bytes runs past the end";
    QTest::newRow("memo key never stored")
        << PICKLE("\x80\x04h\x07.") << "byte 2: memo key 7 was never stored";
    QTest::newRow("memo key far out of range")
        << PICKLE("\x80\x04Nr\xff\xff\xff\x7f.") << "byte 3: memo key 2147483647 out of range";
    QTest::newRow("integer wider than 64 bits")
        << PICKLE("\x80\x04\x8a\x09\x00\x00\x00\x00\x00\x00\x00\x00\x01.")
        << "byte 2: integer wider than 64 bits";
    QTest::newRow("SETITEMS with an odd count")
        << PICKLE("\x80\x04}(K\x01u.") << "byte 6: SETITEMS with an odd number";
    QTest::newRow("APPEND into a dict") << PICKLE("\x80\x04}K\x01"
                                                  "a.")
                                        << "byte 5: APPEND or SETITEM into a value";
    QTest::newRow("STOP with two values")
        << PICKLE("\x80\x04NN.") << "byte 4: STOP with 2 values on the stack";
    QTest::newRow("unknown opcode") << PICKLE("\x80\x04\xff.")
                                    << "byte 2: unknown or unsupported opcode 0xff";
}

void TestPickle::refuses() {
    QFETCH(QByteArray, pickle);
    QFETCH(QString, error);
    const QString got = QString::fromStdString(read(pickle));
    QVERIFY2(got.startsWith(error), qPrintable(got));
}

// A memo reference is the same node again: a frame shared by a thousand events is held once.
void TestPickle::memoSharesNodes() {
    // pickle.dumps([f, f, f]) with f = {'name': 'x'}: one dict, two BINGETs.
    const QByteArray p = PICKLE("\x80\x04]\x94(}\x94\x8c\x04name\x94\x8c\x01x\x94sh\x01h\x01"
                                "e.");
    std::size_t nodes = 0;
    QCOMPARE(QString::fromStdString(read(p, &nodes)),
             QStringLiteral("[{'name': 'x'}, {'name': 'x'}, {'name': 'x'}]"));
    QCOMPARE(nodes, std::size_t(4)); // the list, the dict, its key and its value
}

// Two lists of the same memo references hold one copy of their items (a snapshot's frames lists), and an item
// appended to one of them later is its own: the other is unchanged.
void TestPickle::sharesEqualItems() {
    // outer = [l1, l2], l1 = [f, f, f, f], l2 = [f, f, f, f] then l2.append('x'), f = {'name': 'x'}.
    const QByteArray p = PICKLE("\x80\x04]\x94(]\x94(}\x94\x8c\x04name\x94\x8c\x01x\x94s"
                                "h\x02"
                                "h\x02"
                                "h\x02"
                                "e" // l1
                                "]\x94("
                                "h\x02"
                                "h\x02"
                                "h\x02"
                                "h\x02"
                                "e" // l2
                                "h\x04"
                                "a" // l2.append('x')
                                "e.");
    PickleInput in = PickleInput::fromMemory(std::string_view(p.constData(), std::size_t(p.size())));
    PickleDocument doc;
    const auto error = readPickle(in, doc);
    QVERIFY2(!error, error ? error->message.c_str() : "");
    const QString f = QStringLiteral("{'name': 'x'}");
    const QString four = QStringList{f, f, f, f}.join(QStringLiteral(", "));
    QCOMPARE(QString::fromStdString(repr(doc, doc.root)), QStringLiteral("[[%1], [%1, 'x']]").arg(four));
    std::vector<std::uint32_t> lists;
    doc.forEachItem(doc.root, [&](std::uint32_t l) { lists.push_back(l); });
    QCOMPARE(lists.size(), std::size_t(2));
    const PickleNode& l1 = doc.node(lists[0]);
    const PickleNode& l2 = doc.node(lists[1]);
    QCOMPARE(doc.chunks[l1.items.head].begin, doc.chunks[l2.items.head].begin); // one copy of the four
    QVERIFY(l2.items.head != l2.items.tail);                                    // 'x' in a chunk of its own
    QCOMPARE(l1.count, 4u);
    QCOMPARE(l2.count, 5u);
    // The dict's two items, the four frames once, 'x', the outer list's two.
    QCOMPARE(doc.itemNodes.size(), std::size_t(2 + 4 + 1 + 2));
}

// A file read through a window smaller than its strings: the window grows to what arrives.
void TestPickle::streamsInSmallWindows() {
    const std::string big(10u << 20, 'a'); // 10 MiB string, over the 4 MiB window
    std::string p = "\x80\x04X";
    const std::uint32_t n = std::uint32_t(big.size());
    p.append(reinterpret_cast<const char*>(&n), 4);
    p += big;
    p += ".";
    QTemporaryDir dir;
    for (bool gz : {false, true}) {
        const QString path = dir.filePath(gz ? QStringLiteral("s.pickle.gz") : QStringLiteral("s.pickle"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        const std::string data = gz ? test::gzipText(p) : p;
        f.write(data.data(), qint64(data.size()));
        f.close();
        PickleInput in(path.toStdString());
        QVERIFY(in.openError().empty());
        PickleDocument doc;
        const auto error = readPickle(in, doc);
        QVERIFY2(!error, error ? error->message.c_str() : "");
        QCOMPARE(doc.textOf(doc.root).size(), big.size());
        QCOMPARE(in.wasGzip(), gz);
    }
}

// The snapshot's shape, small: pickle.dumps({'segments': [{'a': 1, 'b': [1, 2, 3, 4, 5]}], 'device_traces':
// [[{'action': 'alloc', 'size': 5}, {'action': 'free', 'size': 5}]]}, protocol=4). The offsets below are
// pickletools.dis's.
const QByteArray snapshotShaped =
    PICKLE("\x80\x04\x95u\x00\x00\x00\x00\x00\x00\x00}\x94(\x8c\x08segments\x94]\x94}\x94(\x8c\x01"
           "a\x94K\x01\x8c\x01"
           "b\x94]\x94(K\x01K\x02K\x03K\x04K\x05"
           "eua\x8c\rdevice_traces\x94]\x94]\x94(}\x94(\x8c\x06"
           "action\x94\x8c\x05"
           "alloc\x94\x8c\x04size\x94K\x05u}\x94(h\x0b\x8c\x04"
           "free\x94h\rK\x05ueau.");

void TestPickle::cutDocuments_data() {
    QTest::addColumn<int>("cut");
    QTest::addColumn<QString>("expected");
    QTest::addColumn<int>("open"); // containers closed at the cut
    QTest::newRow("the root dict, empty") << 13 << "{}" << 0;
    // The segment's dict is the item an APPEND to come would have put into the list.
    QTest::newRow("a segment begun") << 29 << "{'segments': [{}]}" << 3;
    QTest::newRow("a list begun") << 43 << "{'segments': [{'a': 1, 'b': []}]}" << 4;
    QTest::newRow("in a batch") << 47 << "{'segments': [{'a': 1, 'b': [1, 2]}]}" << 4;
    // Whole but for the APPEND that would put it in its list: kept.
    QTest::newRow("a segment read, its APPEND not")
        << 55 << "{'segments': [{'a': 1, 'b': [1, 2, 3, 4, 5]}]}" << 2;
    // The key after a whole list of 1 segment (a count no batch of 1000 leaves): a key whose value was not
    // read.
    QTest::newRow("a key after a whole list") << 71 << "{'segments': [{'a': 1, 'b': [1, 2, 3, 4, 5]}]}" << 1;
    QTest::newRow("the one device's events list begun")
        << 76 << "{'segments': [{'a': 1, 'b': [1, 2, 3, 4, 5]}], 'device_traces': [[]]}" << 3;
    QTest::newRow("one event read") << 107
                                    << "{'segments': [{'a': 1, 'b': [1, 2, 3, 4, 5]}], 'device_traces': "
                                       "[[{'action': 'alloc', 'size': 5}]]}"
                                    << 3;
    QTest::newRow("in the second event") << 119
                                         << "{'segments': [{'a': 1, 'b': [1, 2, 3, 4, 5]}], 'device_traces': "
                                            "[[{'action': 'alloc', 'size': 5}, {'action': 'free'}]]}"
                                         << 4;
    QTest::newRow("all but the STOP") << 127
                                      << "{'segments': [{'a': 1, 'b': [1, 2, 3, 4, 5]}], 'device_traces': "
                                         "[[{'action': 'alloc', 'size': 5}, "
                                         "{'action': 'free', 'size': 5}]]}"
                                      << 0;
}

// A document cut short holds what was read, each open container closed as the opcodes to come would have
// closed it: the same whether the reader was told to stop there or the data ends there.
void TestPickle::cutDocuments() {
    QFETCH(int, cut);
    QFETCH(QString, expected);
    QFETCH(int, open);
    for (const bool truncated : {false, true}) {
        const QByteArray data = truncated ? snapshotShaped.left(cut) : snapshotShaped;
        PickleInput in =
            PickleInput::fromMemory(std::string_view(data.constData(), std::size_t(data.size())));
        PickleDocument doc;
        PickleLimits limits;
        if (!truncated) limits.stopAtOffset = std::uint64_t(cut);
        const std::optional<PickleError> error = readPickle(in, doc, limits);
        QCOMPARE(error.has_value(), truncated);
        if (truncated) {
            QCOMPARE(error->offset, std::uint64_t(cut));
            QVERIFY2(error->message.find("truncated") != std::string::npos, error->message.c_str());
        }
        QVERIFY(!doc.complete);
        QCOMPARE(doc.cutAt, std::uint64_t(cut));
        QCOMPARE(QString::fromStdString(repr(doc, doc.root)), expected);
        QCOMPARE(int(doc.openAtCut.size()), open);
        QVERIFY(std::is_sorted(doc.openAtCut.begin(), doc.openAtCut.end()));
    }
    // Read whole, nothing is cut.
    PickleInput in =
        PickleInput::fromMemory(std::string_view(snapshotShaped.constData(), snapshotShaped.size()));
    PickleDocument whole;
    QVERIFY(!readPickle(in, whole));
    QVERIFY(whole.complete && whole.openAtCut.empty());
}

// A set cancel flag stops the reader with "cancelled" and nothing in the document to use.
void TestPickle::cancels() {
    std::atomic<bool> cancel{true};
    PickleInput in =
        PickleInput::fromMemory(std::string_view(snapshotShaped.constData(), snapshotShaped.size()));
    PickleDocument doc;
    PickleLimits limits;
    limits.cancel = &cancel;
    const std::optional<PickleError> error = readPickle(in, doc, limits);
    QVERIFY(error);
    QCOMPARE(error->message, std::string("cancelled"));
    QCOMPARE(doc.root, PickleDocument::noNode);
}

QTEST_GUILESS_MAIN(TestPickle)
#include "tst_pickle.moc"
