// The GUI tests' precompiled headers (tests/CMakeLists.txt) are built with this file: the tests reuse them,
// so that QTest and the widgets are parsed once, not once per test.
