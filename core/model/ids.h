#pragma once

#include <compare>
#include <cstdint>
#include <functional>

namespace kinetoscope {

// Strong ids: an index into one table can't be passed where another is expected.
template <typename Tag> struct StrongId {
    std::uint32_t value = invalidValue;
    static constexpr std::uint32_t invalidValue = 0xffffffffu;

    constexpr StrongId() = default;
    constexpr explicit StrongId(std::uint32_t v) : value(v) {}
    constexpr bool isValid() const { return value != invalidValue; }
    constexpr auto operator<=>(const StrongId&) const = default;
};

struct StringIdTag;
struct TrackIdTag;
struct CategoryIdTag;
struct EventIndexTag;
using StringId = StrongId<StringIdTag>;
using TrackId = StrongId<TrackIdTag>;
using CategoryId = StrongId<CategoryIdTag>;
// A slice's row in its track's columns (the columns themselves are indexed with its value).
using EventIndex = StrongId<EventIndexTag>;

// One slice: its track and its row in that track's columns.
struct EventRef {
    TrackId track;
    EventIndex index;

    constexpr bool isValid() const { return track.isValid(); }
    constexpr auto operator<=>(const EventRef&) const = default;
};

// An event ref as one integer with the same order (for radix sorts).
constexpr std::uint64_t packRef(EventRef ref) {
    return std::uint64_t(ref.track.value) << 32 | ref.index.value;
}

} // namespace kinetoscope

template <typename Tag> struct std::hash<kinetoscope::StrongId<Tag>> {
    std::size_t operator()(kinetoscope::StrongId<Tag> id) const noexcept { return id.value; }
};
