#include "analysis/roofline/gpupeaks.h"

#include "gpupeaksdata.h"

#include "model/textformat.h"

#include <algorithm>
#include <charconv>

namespace kinetoscope {

namespace {

std::vector<std::string_view> split(std::string_view s, char separator) {
    std::vector<std::string_view> parts;
    std::size_t begin = 0;
    for (std::size_t i = 0; i <= s.size(); ++i)
        if (i == s.size() || s[i] == separator) {
            parts.push_back(s.substr(begin, i - begin));
            begin = i + 1;
        }
    return parts;
}

// An empty cell is "no such unit"; anything else must be a number.
bool parseCell(std::string_view cell, std::optional<double>& out) {
    while (!cell.empty() && cell.front() == ' ')
        cell.remove_prefix(1);
    while (!cell.empty() && (cell.back() == ' ' || cell.back() == '\r'))
        cell.remove_suffix(1);
    if (cell.empty()) return true;
    double v = 0;
    auto [end, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), v);
    if (ec != std::errc() || end != cell.data() + cell.size() || v <= 0) return false;
    out = v;
    return true;
}

} // namespace

std::optional<double> GpuPeaks::tflops(ComputeType type) const {
    switch (type) {
    case ComputeType::FP64:
        return fp64;
    case ComputeType::FP32:
        return fp32;
    case ComputeType::TF32:
        return tf32;
    case ComputeType::BF16:
        return bf16;
    case ComputeType::FP16:
        return fp16;
    case ComputeType::FP8:
        return fp8;
    case ComputeType::INT8:
        return int8;
    }
    return std::nullopt;
}

std::vector<GpuPeaks> parseGpuPeaks(std::string_view tsv) {
    std::vector<GpuPeaks> rows;
    bool header = true;
    for (std::string_view line : split(tsv, '\n')) {
        if (line.empty() || line.front() == '#') continue;
        if (header) { // the column names
            header = false;
            continue;
        }
        const auto cells = split(line, '\t');
        if (cells.size() != 11) continue;
        GpuPeaks p;
        p.match = asciiLower(cells[0]);
        p.name = std::string(cells[1]);
        p.source = std::string(cells[10]);
        if (p.match.empty() || p.source.empty()) continue;
        std::optional<double>* numbers[] = {&p.fp64, &p.fp32, &p.tf32, &p.bf16,
                                            &p.fp16, &p.fp8,  &p.int8, &p.memoryTBps};
        bool ok = true;
        for (std::size_t i = 0; i < 8; ++i)
            ok = ok && parseCell(cells[2 + i], *numbers[i]);
        if (ok && p.memoryTBps) rows.push_back(std::move(p));
    }
    return rows;
}

const std::vector<GpuPeaks>& builtInGpuPeaks() {
    static const std::vector<GpuPeaks> table = parseGpuPeaks(gpuPeaksTsv);
    return table;
}

const GpuPeaks* findGpuPeaks(std::string_view deviceName, const std::vector<GpuPeaks>& table) {
    const std::string name = asciiLower(deviceName);
    if (name.empty()) return nullptr;
    for (const GpuPeaks& p : table)
        for (std::string_view alternative : split(p.match, '|')) {
            bool all = !alternative.empty();
            for (std::string_view part : split(alternative, '&'))
                all = all && !part.empty() && name.find(part) != std::string::npos;
            if (all) return &p;
        }
    return nullptr;
}

} // namespace kinetoscope
