#include "timeline/searchbar.h"

#include <QCheckBox>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QTimer>
#include <QToolButton>

namespace kinetoscope {

SearchBar::SearchBar(QWidget* parent) : QWidget(parent) {
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(6, 3, 6, 3);
    m_edit = new QLineEdit(this);
    m_edit->setPlaceholderText(tr("Find slices by name (Enter: next, Shift+Enter: previous)"));
    m_edit->setClearButtonEnabled(true);
    m_regex = new QCheckBox(tr("Regex"), this);
    m_case = new QCheckBox(tr("Match case"), this);
    m_whole = new QCheckBox(tr("Whole name"), this);
    m_whole->setToolTip(tr("Match slices whose name is exactly the text"));
    m_status = new QLabel(this);
    m_status->setMinimumWidth(160);
    auto* prev = new QToolButton(this);
    prev->setText(QStringLiteral("▲"));
    prev->setToolTip(tr("Previous match (Shift+Enter)"));
    auto* nextButton = new QToolButton(this);
    nextButton->setText(QStringLiteral("▼"));
    nextButton->setToolTip(tr("Next match (Enter)"));
    auto* close = new QToolButton(this);
    close->setText(QStringLiteral("✕"));
    close->setToolTip(tr("Close (Esc)"));
    layout->addWidget(new QLabel(tr("Find:"), this));
    layout->addWidget(m_edit, 1);
    layout->addWidget(m_regex);
    layout->addWidget(m_case);
    layout->addWidget(m_whole);
    layout->addWidget(prev);
    layout->addWidget(nextButton);
    layout->addWidget(m_status);
    layout->addWidget(close);
    // Typing restarts the search after a short pause rather than on every key.
    auto* debounce = new QTimer(this);
    debounce->setSingleShot(true);
    debounce->setInterval(200);
    connect(debounce, &QTimer::timeout, this, &SearchBar::queryChanged);
    connect(m_edit, &QLineEdit::textChanged, debounce, qOverload<>(&QTimer::start));
    // Only what the user types (not showName's text) ends the whole-name mode a selection set.
    connect(m_edit, &QLineEdit::textEdited, this, [this] {
        if (m_wholeFromSelection) m_whole->setChecked(false);
        m_wholeFromSelection = false;
    });
    connect(m_whole, &QCheckBox::clicked, this, [this] { m_wholeFromSelection = false; });
    connect(m_regex, &QCheckBox::toggled, this, &SearchBar::queryChanged);
    connect(m_case, &QCheckBox::toggled, this, &SearchBar::queryChanged);
    connect(m_whole, &QCheckBox::toggled, this, &SearchBar::queryChanged);
    // A whole name and a regex exclude each other.
    connect(m_whole, &QCheckBox::toggled, this, [this](bool on) {
        if (on) m_regex->setChecked(false);
    });
    connect(m_regex, &QCheckBox::toggled, this, [this](bool on) {
        if (on) m_whole->setChecked(false);
    });
    connect(m_edit, &QLineEdit::returnPressed, this, [this] {
        if (QGuiApplication::keyboardModifiers() & Qt::ShiftModifier)
            emit previous();
        else
            emit next();
    });
    connect(prev, &QToolButton::clicked, this, &SearchBar::previous);
    connect(nextButton, &QToolButton::clicked, this, &SearchBar::next);
    connect(close, &QToolButton::clicked, this, &SearchBar::closed);
}

QString SearchBar::text() const {
    return m_edit->text();
}
bool SearchBar::isRegex() const {
    return m_regex->isChecked();
}
bool SearchBar::isCaseSensitive() const {
    return m_case->isChecked();
}
bool SearchBar::isWholeName() const {
    return m_whole->isChecked();
}
void SearchBar::setWholeName(bool on) {
    m_whole->setChecked(on);
}
void SearchBar::showName(const QString& name) {
    setRegex(false);
    setWholeName(true);
    m_wholeFromSelection = true;
    m_edit->setText(name);
}
void SearchBar::setText(const QString& text) {
    m_edit->setText(text);
}
void SearchBar::setRegex(bool on) {
    m_regex->setChecked(on);
}
void SearchBar::focusQuery() {
    m_edit->setFocus();
    m_edit->selectAll();
}

void SearchBar::setStatus(const QString& text, bool error) {
    m_status->setText(text);
    m_status->setStyleSheet(error ? QStringLiteral("color:#b91c1c") : QString());
}

void SearchBar::keyPressEvent(QKeyEvent* e) {
    if (e->key() == Qt::Key_Escape) {
        emit closed();
        return;
    }
    QWidget::keyPressEvent(e);
}

} // namespace kinetoscope
