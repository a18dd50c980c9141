#pragma once

namespace kinetoscope {

// Gives the pages of memory the program has freed back to the system. glibc keeps what a thread frees in
// that thread's arena for the next allocation and returns only the free memory at an arena's top: after
// the 1 GB trace's load, 255 MB of the 400 MB resident were the loader's freed buffers, held until the
// process ended (bench/RESULTS.md). Called where a large transient working set has just been freed (the end
// of a load, of each table of an export); a few milliseconds. Nothing where the C library is not glibc.
void returnFreedMemory();

} // namespace kinetoscope
