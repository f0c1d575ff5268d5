// Output every library test program shares: one line per result, "NAME STATUS v0 v1 ...", which the
// Python side parses and compares with numpy (tests/e2e/test_nvidia_libs.py).
#pragma once
#include <cstdio>

template <typename T>
static void report(const char *name, int status, const T *v, int n) {
    printf("%s %d", name, status);
    for (int i = 0; i < n; i++) printf(" %.9g", (double)v[i]);
    printf("\n");
    fflush(stdout);
}

// The inputs both sides generate: small integers scaled, exact in float and double.
static double input(int i, int salt) { return ((i * 7 + salt * 13) % 11 - 5) * 0.25; }
