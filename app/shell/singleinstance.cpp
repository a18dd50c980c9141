#include "shell/singleinstance.h"

#include <QDataStream>
#include <QLocalServer>
#include <QLocalSocket>

#include <unistd.h>

namespace kinetoscope {

namespace {
// Message: a QDataStream-encoded QStringList; an empty list just raises the window.
constexpr QDataStream::Version streamVersion = QDataStream::Qt_6_0;
} // namespace

QString SingleInstance::defaultName() {
    const QString override = qEnvironmentVariable("KINETOSCOPE_INSTANCE");
    if (!override.isEmpty()) return override;
    // One instance per user and display: a file opened on one X display (or Wayland session) went to the
    // window of the same user on another, printing nothing.
    QString display = qEnvironmentVariable("WAYLAND_DISPLAY");
    if (!display.isEmpty())
        display.prepend(QStringLiteral("wayland-"));
    else
        display = qEnvironmentVariable("DISPLAY");
    if (display.isEmpty()) display = QStringLiteral("none");
    for (QChar& c : display) // a socket name: no path separators or colons
        if (!(c.isLetterOrNumber() || c == QLatin1Char('.') || c == QLatin1Char('-'))) c = QLatin1Char('_');
    return QStringLiteral("kinetoscope-%1-%2").arg(::getuid()).arg(display);
}

SingleInstance::SingleInstance(QString name, QObject* parent) : QObject(parent), m_name(std::move(name)) {}

SingleInstance::~SingleInstance() = default;

bool SingleInstance::sendToRunning(const QStringList& files, int timeoutMs) const {
    QLocalSocket socket;
    socket.connectToServer(m_name);
    if (!socket.waitForConnected(timeoutMs)) return false;
    QByteArray payload;
    QDataStream out(&payload, QIODevice::WriteOnly);
    out.setVersion(streamVersion);
    out << files;
    QDataStream frame(&socket);
    frame.setVersion(streamVersion);
    frame << payload;
    if (!socket.waitForBytesWritten(timeoutMs)) return false;
    // Wait for the acknowledgement so the files are not lost if the running instance is just exiting.
    if (!socket.waitForReadyRead(timeoutMs)) return false;
    return socket.readAll().startsWith("ok");
}

bool SingleInstance::listen() {
    m_server = new QLocalServer(this);
    m_server->setSocketOptions(QLocalServer::UserAccessOption);
    if (!m_server->listen(m_name)) {
        // A socket file left by a crashed instance: nobody answers on it, so take it over.
        QLocalServer::removeServer(m_name);
        if (!m_server->listen(m_name)) return false;
    }
    connect(m_server, &QLocalServer::newConnection, this, [this] {
        while (QLocalSocket* socket = m_server->nextPendingConnection()) {
            connect(socket, &QLocalSocket::disconnected, socket, &QObject::deleteLater);
            connect(socket, &QLocalSocket::readyRead, socket, [this, socket] {
                QDataStream in(socket);
                in.setVersion(streamVersion);
                in.startTransaction();
                QByteArray payload;
                in >> payload;
                if (!in.commitTransaction()) return; // wait for the rest
                QDataStream decode(payload);
                decode.setVersion(streamVersion);
                QStringList files;
                decode >> files;
                socket->write("ok");
                socket->flush();
                emit filesReceived(files);
            });
        }
    });
    return true;
}

} // namespace kinetoscope
