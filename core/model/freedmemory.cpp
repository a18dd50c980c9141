#include "freedmemory.h"

#include <cstdlib> // (defines __GLIBC__ where the C library is glibc)
#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace kinetoscope {

void returnFreedMemory() {
#if defined(__GLIBC__)
    malloc_trim(0); // (every arena's free pages, not only the top's, since glibc 2.8)
#endif
}

} // namespace kinetoscope
