#include "analysis/report/rows.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace kinetoscope {

double Cell::number() const {
    switch (kind) {
    case Kind::Unsigned:
        return double(unsignedValue);
    case Kind::Signed:
        return double(signedValue);
    case Kind::Real:
        return real;
    case Kind::Bool:
        return flag ? 1 : 0;
    case Kind::Null:
    case Kind::Text:
        break;
    }
    return 0;
}

namespace {
std::int64_t integerOf(const Cell& cell) {
    return cell.kind == Cell::Kind::Unsigned ? std::int64_t(cell.unsignedValue) : cell.signedValue;
}
} // namespace

void writeCell(JsonWriter<std::string>& w, CellFormat format, int decimals, const Cell& cell) {
    if (cell.isNull()) return w.null();
    switch (format) {
    case CellFormat::Text:
        return w.str(cell.text);
    case CellFormat::Json:
        return w.json(cell.text);
    case CellFormat::Count:
        if (cell.kind == Cell::Kind::Unsigned) return w.num(cell.unsignedValue);
        return w.num(cell.signedValue);
    case CellFormat::Integer:
        return w.num(integerOf(cell));
    case CellFormat::Micros:
        return w.micros(integerOf(cell));
    case CellFormat::Fixed:
    case CellFormat::Share:
    case CellFormat::Percent:
        return w.fixed(cell.number(), decimals);
    case CellFormat::General:
        return w.general(cell.number());
    case CellFormat::Exact:
        return w.exact(cell.number());
    case CellFormat::Bool:
        return w.boolean(cell.flag);
    }
}

std::string cellText(CellFormat format, int decimals, const Cell& cell) {
    // Absent, or a figure with no value (0/0): an empty cell.
    if (cell.isNull() || (cell.kind == Cell::Kind::Real && !std::isfinite(cell.real))) return {};
    switch (format) {
    case CellFormat::Text:
    case CellFormat::Json:
        return cell.text;
    case CellFormat::Count:
    case CellFormat::Integer:
        return cell.kind == Cell::Kind::Unsigned ? std::to_string(cell.unsignedValue)
                                                 : std::to_string(cell.signedValue);
    case CellFormat::Micros:
        return formatMicros(integerOf(cell));
    case CellFormat::Bool:
        return cell.flag ? "yes" : "";
    case CellFormat::Share: {
        std::string out;
        JsonWriter w(out);
        w.fixed(cell.number() * 100, decimals);
        return out + "%";
    }
    case CellFormat::Fixed:
    case CellFormat::Percent:
    case CellFormat::General:
    case CellFormat::Exact:
        break;
    }
    std::string out;
    JsonWriter w(out);
    w.fixed(cell.number(), decimals);
    return format == CellFormat::Percent ? out + "%" : out;
}

namespace {
// `at`, or the start of the UTF-8 character it falls inside: a cut there keeps characters whole.
std::size_t onBoundary(const std::string& text, std::size_t at) {
    while (at > 0 && at < text.size() && (static_cast<unsigned char>(text[at]) & 0xC0) == 0x80)
        --at;
    return at;
}
} // namespace

std::string elideText(const std::string& text, std::size_t max) {
    if (text.size() <= max) return text;
    return text.substr(0, onBoundary(text, max - 3)) + "...";
}

namespace {

// Its start, "...", and `max` − the start − 3 bytes from a little before byte `from` (where it differs from
// the texts it would read alike with).
std::string elideAround(const std::string& text, std::size_t max, std::size_t from) {
    const std::size_t room = max > 6 ? max - 3 : 3;
    const std::size_t head = onBoundary(text, room / 2);
    const std::size_t start = onBoundary(text, std::max(head, from > 6 ? from - 6 : 0));
    std::size_t end = std::min(text.size(), start + (room - head));
    if (end < text.size()) end = onBoundary(text, end);
    return text.substr(0, head) + "..." + text.substr(start, end - start) + (end < text.size() ? "..." : "");
}
} // namespace

std::vector<std::string> elideDistinct(const std::vector<std::string>& texts, std::size_t max) {
    std::vector<std::string> out(texts.size());
    for (std::size_t i = 0; i < texts.size(); ++i)
        out[i] = elideText(texts[i], max);
    // Up to a few rounds: each round shows each alike group the bytes where its members first differ.
    for (int round = 0; round < 4; ++round) {
        std::map<std::string, std::vector<std::size_t>> alike;
        for (std::size_t i = 0; i < texts.size(); ++i)
            alike[out[i]].push_back(i);
        bool changed = false;
        for (const auto& [shown, members] : alike) {
            if (members.size() < 2) continue;
            // Where the group's texts first differ (two equal texts rightly read alike).
            std::size_t common = texts[members[0]].size();
            bool differ = false;
            for (std::size_t m = 1; m < members.size(); ++m) {
                const std::string& a = texts[members[0]];
                const std::string& b = texts[members[m]];
                if (a == b) continue;
                differ = true;
                const std::size_t n = std::min(a.size(), b.size());
                const auto first = std::mismatch(a.begin(), a.begin() + std::ptrdiff_t(n), b.begin()).first;
                common = std::min(common, std::size_t(first - a.begin()));
            }
            if (!differ) continue;
            for (std::size_t m : members) {
                std::string again = round < 3 ? elideAround(texts[m], max, common) : texts[m];
                if (again != out[m]) {
                    out[m] = std::move(again);
                    changed = true;
                }
            }
        }
        if (!changed) break;
    }
    return out;
}

namespace {
// Columns a text takes in a terminal: its UTF-8 code points ("…" is one column, three bytes).
std::size_t columnsOf(const std::string& s) {
    return std::size_t(std::count_if(s.begin(), s.end(),
                                     [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}
} // namespace

namespace {
// printf's "%*s": `text` padded with spaces to |width| bytes, on the left when width is positive.
std::string padded(const std::string& text, int width) {
    const std::size_t w = std::size_t(width < 0 ? -width : width);
    if (text.size() >= w) return text;
    return width < 0 ? text + std::string(w - text.size(), ' ') : std::string(w - text.size(), ' ') + text;
}

std::string fixedTextTable(const std::vector<TextColumn>& columns,
                           const std::vector<std::vector<std::string>>& rows) {
    auto line = [&](auto cell) {
        std::string out;
        for (std::size_t c = 0; c < columns.size(); ++c)
            out += (c ? " " : "") + padded(cell(c), columns[c].fieldWidth);
        return out + "\n";
    };
    std::string out = line([&](std::size_t c) { return columns[c].title; });
    for (const auto& row : rows)
        out += line([&](std::size_t c) { return row[c]; });
    return out;
}
} // namespace

std::string renderTextTable(const std::vector<TextColumn>& columns,
                            const std::vector<std::vector<std::string>>& rows) {
    if (!columns.empty() &&
        std::all_of(columns.begin(), columns.end(), [](const TextColumn& c) { return c.fieldWidth != 0; }))
        return fixedTextTable(columns, rows);
    std::vector<std::size_t> width(columns.size());
    for (std::size_t c = 0; c < columns.size(); ++c)
        width[c] = columnsOf(columns[c].title);
    for (const auto& row : rows)
        for (std::size_t c = 0; c < row.size(); ++c)
            width[c] = std::max(width[c], columnsOf(row[c]));
    auto line = [&](const std::vector<std::string>& cells) {
        std::string out;
        for (std::size_t c = 0; c < cells.size(); ++c) {
            const std::size_t pad = width[c] - columnsOf(cells[c]);
            if (c) out += "  ";
            if (columns[c].numeric)
                out += std::string(pad, ' ') + cells[c];
            else
                out += cells[c] + (c + 1 < cells.size() ? std::string(pad, ' ') : "");
        }
        return out + "\n";
    };
    std::vector<std::string> titles;
    for (const TextColumn& c : columns)
        titles.push_back(c.title);
    std::string out = line(titles);
    std::size_t total = 0;
    for (std::size_t w : width)
        total += w;
    out += std::string(total + 2 * (columns.size() - 1), '-') + "\n";
    for (const auto& row : rows)
        out += line(row);
    return out;
}

} // namespace kinetoscope
