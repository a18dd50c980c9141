// Compiled with one layer's include path (tests/layering/CMakeLists.txt), including PROBE_HEADER: a header of
// a layer above it or beside it must not be found, one of a layer below must be.
#include PROBE_HEADER

int kinetoscopeLayerProbe = 0;
