#pragma once

// Qt's headers first: moc cannot parse some of the standard library's C++20 headers when they come first.
#include <QObject>
#include <QString>

#include "analysis/memory/memorytimeline.h"
#include "snapshot/memorysnapshot.h"

#include <memory>
#include <thread>
#include <vector>

namespace kinetoscope {

// A snapshot's model with each device's timeline, as the snapshot tab shows it.
struct LoadedSnapshot {
    std::shared_ptr<const MemorySnapshot> snapshot;
    std::vector<std::shared_ptr<const MemoryTimeline>> timelines; // per device of snapshot->devices
    // A file cut short or damaged opens with what came before the fault: this says where and why (one line,
    // with the file's name).
    QString warning;
    std::uint64_t fileTextBytes = 0; // the whole pickle's size, as far as the file tells it
};

// Loads a memory snapshot on a worker thread, and for a large one shows its first screens meanwhile: a
// pickle cannot be read from the middle (its memo refers back, and the allocator's state comes first), so a
// second thread reads the file's first 32 MiB as if it ended there, then 128 and 512, each a preview of the
// trace's beginning (MemorySnapshot::partial), until the whole file is in; all but the first at the lowest
// priority. Files whose pickle is under
// KINETOSCOPE_SNAPSHOT_PREVIEW_MIN_BYTES (default 256 MiB, where the whole load takes about half a second)
// have none. Cancelling (or deleting the job) stops both reads within milliseconds.
class SnapshotLoadJob : public QObject {
    Q_OBJECT
  public:
    explicit SnapshotLoadJob(QString path, QObject* parent = nullptr);
    ~SnapshotLoadJob() override;

    void start();
    void cancel();

  signals:
    // Each a longer beginning of the file than the last; none after `loaded` or `failed`.
    void previewed(const kinetoscope::LoadedSnapshot& preview);
    void loaded(const kinetoscope::LoadedSnapshot& snapshot);
    void failed(QString message);

  private:
    struct Shared;
    QString m_path;
    std::shared_ptr<Shared> m_shared;
    std::thread m_full;
    std::thread m_previews;
};

} // namespace kinetoscope
