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
    // A table row's name, matched whole until the user types a query of their own: typing is a substring
    // search again (a whole-name mode left over from a selection made "layer_norm" find nothing).
    void showName(const QString& name);
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
    bool m_wholeFromSelection = false;
};

} // namespace kinetoscope
