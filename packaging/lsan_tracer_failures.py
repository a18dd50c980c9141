#!/usr/bin/env python3
"""Whether every test that failed in a ctest run failed only because LeakSanitizer's own tracer did.

LeakSanitizer checks for leaks at exit by stopping the process's threads with ptrace from a tracer thread; on a
busy VM that tracer fails now and then ("LeakSanitizer has encountered a fatal error", google/sanitizers#1353),
after every test case passed and before any leak was looked for. check.sh runs such a test once more. Anything
else fails CI as it is: a case that failed, a leak found, an ASan or UBSan report, a crash, a timeout, a test
that is not a Qt Test (whose summary line says every case passed), or a fatal error of that kind twice.

Usage: lsan_tracer_failures.py CTEST_OUTPUT_LOG (written by `ctest --output-log`). Prints the tests to run again
and exits 0 when there are such tests and no others failed; exits 1 otherwise.
"""
import re
import sys

TRACER_FAILED = "LeakSanitizer has encountered a fatal error"
REAL_FAILURES = ("FAIL!", "detected memory leaks", "ERROR: AddressSanitizer", "runtime error:",
                 "ERROR: LeakSanitizer")
ALL_PASSED = re.compile(r"^Totals: \d+ passed, 0 failed", re.M)
STATUS = re.compile(r"^\s*\d+/\d+ Test\s+#\d+: (\S+) \.*\s*(\*\*\*)?(\w+)")


def main(path: str) -> int:
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().splitlines()
    # Each test's status line, then (for a failure) its output, up to the next test's lines.
    outputs: dict[str, list[str]] = {}
    failed: dict[str, str] = {}
    current = None
    for line in lines:
        status = STATUS.match(line)
        if status:
            name, _, result = status.groups()
            current = None
            if result != "Passed":
                failed[name] = result
                outputs[name] = []
                current = name
            continue
        if re.match(r"^\s*Start\s+\d+: ", line) or line.startswith("The following tests"):
            current = None
        elif current:
            outputs[current].append(line)
    if not failed:
        return 1
    for name, result in failed.items():
        text = "\n".join(outputs[name])
        if (result != "Failed" or TRACER_FAILED not in text or not ALL_PASSED.search(text)
                or any(marker in text for marker in REAL_FAILURES)):
            print(f"lsan_tracer_failures.py: {name} failed for another reason ({result})", file=sys.stderr)
            return 1
    print("\n".join(failed))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
