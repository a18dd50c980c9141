#include "panels/querypanel.h"

#include "shell/backgroundjobs.h"
#include "sql/examplequeries.h"
#include "sql/querytrack.h"
#include "tables/queryresultmodel.h"

#include <QComboBox>
#include <QCoreApplication>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QShortcut>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QTextBlock>
#include <QTimer>
#include <QVBoxLayout>

namespace kinetoscope {

namespace {
constexpr int historyLength = 50;
const char* const historyKey = "query/history";
} // namespace

QueryPanel::QueryPanel(std::shared_ptr<const LoadedTrace> trace, QWidget* parent)
    : QWidget(parent), m_trace(std::move(trace)),
      m_database(std::make_shared<sql::TraceDatabase>(*m_trace->store)) {
    m_examples = new QComboBox(this);
    m_examples->addItem(tr("Examples…"));
    for (const sql::ExampleQuery& q : sql::exampleQueries())
        m_examples->addItem(QString::fromUtf8(q.title.data(), qsizetype(q.title.size())),
                            QString::fromUtf8(q.sql.data(), qsizetype(q.sql.size())));
    m_examples->setToolTip(tr("Stored queries to start from (docs/SQL.md lists the tables)"));
    m_history = new QComboBox(this);
    m_history->setToolTip(tr("The queries run before, the last first"));
    m_history->setMinimumContentsLength(24);
    m_history->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_run = new QPushButton(tr("Run"), this);
    m_run->setToolTip(tr("Run the query (Ctrl+Enter)"));
    m_cancel = new QPushButton(tr("Cancel"), this);
    m_pin = new QPushButton(tr("Pin as track"), this);
    m_pin->setToolTip(tr("Show the rows (their ts and dur) as a lane of slices on the timeline"));
    m_busy = new QProgressBar(this);
    m_busy->setRange(0, 0);
    m_busy->setMaximumWidth(80);
    m_busy->setTextVisible(false);
    m_busy->hide();
    m_status = new QLabel(this);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(0, 0, 0, 0);
    bar->addWidget(m_examples);
    bar->addWidget(m_history, 1);
    bar->addWidget(m_run);
    bar->addWidget(m_cancel);
    bar->addWidget(m_busy);
    bar->addWidget(m_status, 2);
    bar->addWidget(m_pin);

    m_editor = new QPlainTextEdit(this);
    m_editor->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_editor->setPlaceholderText(
        tr("SELECT name, count(*), sum(dur) / 1e3 AS total_us FROM kernel GROUP BY name ORDER BY 3 DESC"));
    m_editor->setTabChangesFocus(true);
    m_model = new QueryResultModel(this);
    m_proxy = new QSortFilterProxyModel(this);
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(Qt::EditRole);
    m_view = new QTableView(this);
    m_view->setModel(m_proxy);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(-1, Qt::AscendingOrder); // the query's own order until a header is clicked
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 4);
    m_view->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_editor);
    split->addWidget(m_view);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 3);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(bar);
    layout->addWidget(split, 1);

    m_clock = new QTimer(this);
    m_clock->setInterval(100);
    connect(m_clock, &QTimer::timeout, this, [this] {
        m_status->setText(tr("running… %1 s").arg(double(m_elapsed.elapsed()) / 1000, 0, 'f', 1));
    });
    for (const QKeySequence& keys :
         {QKeySequence(Qt::CTRL | Qt::Key_Return), QKeySequence(Qt::CTRL | Qt::Key_Enter)}) {
        auto* shortcut = new QShortcut(keys, this);
        shortcut->setContext(Qt::WidgetWithChildrenShortcut);
        connect(shortcut, &QShortcut::activated, this, &QueryPanel::run);
    }
    connect(m_run, &QPushButton::clicked, this, &QueryPanel::run);
    connect(m_cancel, &QPushButton::clicked, this, &QueryPanel::cancel);
    connect(m_pin, &QPushButton::clicked, this, &QueryPanel::pin);
    connect(m_examples, &QComboBox::activated, this, [this](int index) {
        if (index <= 0) return;
        setSql(m_examples->itemData(index).toString());
        m_examples->setCurrentIndex(0);
        run();
    });
    connect(m_history, &QComboBox::activated, this,
            [this](int index) { setSql(m_history->itemData(index).toString()); });
    connect(m_view, &QTableView::clicked, this, &QueryPanel::onRowActivated);
    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) { onRowActivated(current); });
    for (const QString& sql : QSettings().value(historyKey).toStringList())
        m_history->addItem(sql.simplified().left(120), sql);
    updateButtons();
}

QueryPanel::~QueryPanel() {
    if (m_running) m_database->interrupt();
}

void QueryPanel::setSql(const QString& sql) {
    m_editor->setPlainText(sql);
}

QString QueryPanel::sql() const {
    return m_editor->toPlainText();
}

const std::shared_ptr<const sql::QueryResult>& QueryPanel::result() const {
    return m_model->result();
}

void QueryPanel::run() {
    const QString text = sql();
    if (text.trimmed().isEmpty()) return;
    if (m_running) {
        // One query at a time on the connection: stop this one; the new one runs once it has.
        m_database->interrupt();
        QPointer<QueryPanel> self(this);
        connect(
            this, &QueryPanel::finished, this,
            [self] {
                if (self) self->run();
            },
            Qt::SingleShotConnection);
        return;
    }
    remember(text);
    m_running = true;
    const std::uint64_t generation = ++m_generation;
    m_elapsed.start();
    m_clock->start();
    m_busy->show();
    m_status->setText(tr("running…"));
    updateButtons();
    auto database = m_database;
    auto trace = m_trace; // the store the database reads, kept while the query runs
    const Parameters parameters = m_parameters ? m_parameters() : Parameters{};
    QPointer<QueryPanel> self(this);
    startBackground([database, trace, sql = text.toStdString(), parameters, self, generation] {
        auto result = std::make_shared<const sql::QueryResult>(database->query(sql, parameters));
        QMetaObject::invokeMethod(
            QCoreApplication::instance(),
            [self, result, generation] {
                if (!self || generation != self->m_generation) return;
                self->onFinished(result, self->m_elapsed.elapsed());
            },
            Qt::QueuedConnection);
    });
}

void QueryPanel::cancel() {
    if (m_running) m_database->interrupt();
}

void QueryPanel::onFinished(std::shared_ptr<const sql::QueryResult> result, qint64 ms) {
    m_running = false;
    m_clock->stop();
    m_busy->hide();
    const QString time = tr("%1 s").arg(double(ms) / 1000, 0, 'f', 3);
    if (result->interrupted) {
        m_status->setText(tr("Cancelled after %1").arg(time));
    } else if (!result->ok()) {
        QString where;
        if (result->errorLine > 0)
            where = tr("line %1, column %2: ").arg(result->errorLine).arg(result->errorColumn);
        m_status->setText(where + QString::fromStdString(result->error));
        // Put the cursor where SQLite found the error.
        if (result->errorLine > 0) {
            QTextCursor c(m_editor->document()->findBlockByNumber(result->errorLine - 1));
            c.movePosition(QTextCursor::Right, QTextCursor::MoveAnchor, result->errorColumn - 1);
            m_editor->setTextCursor(c);
        }
    } else {
        m_model->setResult(result);
        m_view->sortByColumn(-1, Qt::AscendingOrder);
        m_view->resizeColumnsToContents();
        for (int c = 0; c < m_model->columnCount(); ++c)
            m_view->setColumnWidth(c, std::min(m_view->columnWidth(c), 420));
        const std::size_t rows = result->rows.size();
        m_status->setText((rows == 1 ? tr("1 row in %1") : tr("%L1 rows in %2").arg(rows)).arg(time));
    }
    updateButtons();
    emit finished();
}

void QueryPanel::onRowActivated(const QModelIndex& index) {
    const auto& result = m_model->result();
    if (!result || !index.isValid()) return;
    const int column = sql::sliceIdColumn(*result);
    if (column < 0) return;
    const int row = m_proxy->mapToSource(index).row();
    const sql::Value& v = result->rows[std::size_t(row)][std::size_t(column)];
    if (const auto* id = std::get_if<std::int64_t>(&v))
        if (const auto ref = m_database->sliceOf(*id)) emit sliceRequested(*ref);
}

void QueryPanel::pin() {
    const auto& result = m_model->result();
    if (!result) return;
    std::string why;
    const QString title = tr("Query %1").arg(++m_pinned);
    auto track = sql::queryTrack(*m_database, *result, title.toStdString(), why);
    if (!track) {
        --m_pinned;
        m_status->setText(QString::fromStdString(why));
        return;
    }
    emit trackRequested(std::make_shared<const DerivedTrack>(std::move(*track)));
    m_status->setText(tr("Pinned %1 on the timeline").arg(title));
}

void QueryPanel::remember(const QString& sql) {
    QStringList history = QSettings().value(historyKey).toStringList();
    history.removeAll(sql);
    history.prepend(sql);
    while (history.size() > historyLength)
        history.removeLast();
    QSettings().setValue(historyKey, history);
    m_history->clear();
    for (const QString& s : history)
        m_history->addItem(s.simplified().left(120), s);
}

void QueryPanel::updateButtons() {
    m_run->setEnabled(true);
    m_cancel->setEnabled(m_running);
    const auto& result = m_model->result();
    const bool timed = result && std::count(result->columns.begin(), result->columns.end(), "ts") &&
                       std::count(result->columns.begin(), result->columns.end(), "dur");
    m_pin->setEnabled(!m_running && timed);
}

} // namespace kinetoscope
