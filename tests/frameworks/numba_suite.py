"""numba-cuda's own test suite (the `numba.cuda.tests` package its wheel ships), module by module, as
unittest runs it, each test's outcome written to a JSON file: run under `rgpu run` with the frameworks
interpreter by tests/e2e/test_numba_suite.py, on whatever device the server has.

    python numba_suite.py OUT.json numba.cuda.tests.cudadrv.test_events [more modules...]

OUT.json: {module: {"tests": {test id: [outcome, reason]}, "seconds": s}}, outcome one of passed,
skipped, failed, error, expected_failure, unexpected_success; the reason is a skip's message or a
failure's traceback (its last 4000 characters)."""
from __future__ import annotations

import json
import sys
import time
import unittest


class Recorder(unittest.TestResult):
    def __init__(self):
        super().__init__()
        self.outcomes: dict[str, list[str]] = {}

    def _put(self, test, outcome, reason=""):
        self.outcomes[test.id()] = [outcome, reason[-4000:]]

    def addSuccess(self, test):
        self._put(test, "passed")

    def addSkip(self, test, reason):
        self._put(test, "skipped", str(reason))

    def addFailure(self, test, err):
        self._put(test, "failed", self._exc_info_to_string(err, test))

    def addError(self, test, err):
        # a class's or module's setUp failing is reported against a placeholder test
        self._put(test, "error", self._exc_info_to_string(err, test))

    def addExpectedFailure(self, test, err):
        self._put(test, "expected_failure")

    def addUnexpectedSuccess(self, test):
        self._put(test, "unexpected_success")

    def addSubTest(self, test, subtest, err):
        if err is not None:  # the test as a whole fails; which subtest did is in the reason
            failed = issubclass(err[0], test.failureException)
            self._put(test, "failed" if failed else "error", f"{subtest.id()}: {self._exc_info_to_string(err, test)}")

    def stopTest(self, test):
        super().stopTest(test)
        print(f"{self.outcomes.get(test.id(), ['?'])[0]:8} {test.id()}", flush=True)


def main(out: str, modules: list[str]) -> int:
    report = {}
    for name in modules:
        start = time.monotonic()
        result = Recorder()
        try:
            suite = unittest.defaultTestLoader.loadTestsFromName(name)
        except Exception as e:  # noqa: BLE001 - an import failure is the module's one result
            result.outcomes[name] = ["error", f"import failed: {e!r}"]
        else:
            suite.run(result)
        report[name] = {"tests": result.outcomes, "seconds": round(time.monotonic() - start, 2)}
        with open(out, "w") as f:  # what ran so far, should a later module kill the process
            json.dump(report, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2:]))
