#pragma once

#include <QWidget>

class QLineEdit;
class QCheckBox;
class QLabel;
class QToolButton;

namespace kinetoscope {

// Ctrl+F: a query field with regex and case toggles, the match count and next/previous.
class SearchBar : public QWidget {
    Q_OBJECT
  public:
    explicit SearchBar(QWidget* parent = nullptr);

    QString text() const;
    bool isRegex() const;
    bool isCaseSensitive() const;
    // The whole name, exactly: what a table row marks on the timeline (its name as written, no escaped
    // regex).
    bool isWholeName() const;
    void setText(const QString& text);
    void setRegex(bool on);
    void setWholeName(bool on);
    void setStatus(const QString& text, bool error = false);
    void focusQuery();

  signals:
    void queryChanged();
    void next();
    void previous();
    void closed();

  protected:
    void keyPressEvent(QKeyEvent*) override;

  private:
    QLineEdit* m_edit;
    QCheckBox* m_regex;
    QCheckBox* m_case;
    QCheckBox* m_whole;
    QLabel* m_status;
};

} // namespace kinetoscope
