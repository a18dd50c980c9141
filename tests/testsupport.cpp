#include "testsupport.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <zlib.h>

namespace kinetoscope::test {

std::string tracePath(const char* relative) {
    return std::string(KINETOSCOPE_TRACES_DIR) + "/" + relative;
}

std::string gzipText(const std::string& text, int members) {
    std::string out;
    const std::size_t step = (text.size() + members - 1) / std::max(members, 1);
    for (std::size_t pos = 0; pos < text.size() || (pos == 0 && text.empty()); pos += step) {
        const std::string part = text.substr(pos, step);
        z_stream zs{};
        deflateInit2(&zs, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
        std::string buf(deflateBound(&zs, part.size()) + 64, '\0');
        zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(part.data()));
        zs.avail_in = uInt(part.size());
        zs.next_out = reinterpret_cast<Bytef*>(buf.data());
        zs.avail_out = uInt(buf.size());
        deflate(&zs, Z_FINISH);
        buf.resize(zs.total_out);
        deflateEnd(&zs);
        out += buf;
        if (text.empty()) break;
    }
    return out;
}

std::string readText(const std::string& path) {
    gzFile f = gzopen(path.c_str(), "rb"); // reads plain files as they are
    if (!f) return {};
    std::string out;
    char buf[1 << 16];
    int n = 0;
    while ((n = gzread(f, buf, sizeof buf)) > 0)
        out.append(buf, std::size_t(n));
    gzclose(f);
    return n < 0 ? std::string() : out;
}

QString compareGolden(const QString& name, const std::string& actual) {
    const QString path = QStringLiteral(KINETOSCOPE_GOLDEN_DIR) + "/" + name;
    if (qEnvironmentVariableIsSet("KINETOSCOPE_UPDATE_GOLDEN")) {
        QFile f(path);
        if (f.open(QIODevice::WriteOnly)) f.write(actual.data(), qint64(actual.size()));
        return {};
    }
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return "missing golden file " + path;
    const QByteArray expected = f.readAll();
    if (expected == QByteArray::fromStdString(actual)) {
        QFile::remove(path + ".actual");
        return {};
    }
    QFile out(path + ".actual");
    if (out.open(QIODevice::WriteOnly)) out.write(actual.data(), qint64(actual.size()));
    out.close();
    QProcess diff;
    diff.start("diff", {"-u", path, path + ".actual"});
    diff.waitForFinished();
    return "golden mismatch for " + name + ":\n" + QString::fromUtf8(diff.readAllStandardOutput().left(4000));
}

LoadResult loadText(const std::string& json, std::size_t chunkBytes, unsigned threads) {
    LoadOptions options;
    options.chunkBytes = chunkBytes;
    options.threads = threads;
    return loadTraceText(json, options);
}

} // namespace kinetoscope::test
