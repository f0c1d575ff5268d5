"""Request parsing and validation (sizes, fractions, compute steps, defaults)."""
import re

import pytest

from rgpu.controller.requests import Request, RequestError, parse_memory


@pytest.mark.parametrize("text,expected", [
    ("8GiB", (8 << 30, None)), ("512MiB", (512 << 20, None)), ("8Gi", (8 << 30, None)),
    ("16GB", (16 << 30, None)), ("12G", (12 << 30, None)), ("512M", (512 << 20, None)),  # every unit is binary
    ("512", (512 << 20, None)), ("12000", (12000 << 20, None)),           # a bare number is MiB, as nvidia-smi's
    ("1073741824B", (1 << 30, None)), ("1.5GiB", (3 << 29, None)), ("16 MiB", (16 << 20, None)),
    ("1.5G", (3 << 29, None)), ("25%", (None, 0.25)), ("100%", (None, 1.0)),  # a share of the GPU only with %
])
def test_parse_memory(text, expected):
    assert parse_memory(text) == expected


@pytest.mark.parametrize("text,says", [
    ("", "not a size"), ("lots", "not a size"), ("8 parsecs", "not a size"), ("4G1", "not a size"),
    ("0%", "(0, 100]"), ("150%", "(0, 100]"), ("-1GiB", "not a size"), ("0", "at least 16.0 MiB"),
    ("1.5", "at least 16.0 MiB"), ("12", "at least 16.0 MiB"), ("1048576B", "at least 16.0 MiB"),
    ("0.5", "a share of the GPU is 50%"), ("1", "a share of the GPU is 50%"),  # a bare number is never a fraction
])
def test_parse_memory_rejects_with_the_grammar_or_the_minimum(text, says):
    with pytest.raises(RequestError, match=re.escape(says)):
        parse_memory(text)


def test_the_minimum_quota_holds_on_the_wire_too():
    with pytest.raises(RequestError, match="at least 16.0 MiB"):
        Request.from_wire({"memory": 1 << 20})
    assert Request.from_wire({"memory": 16 << 20}).memory == 16 << 20


def test_defaults_whole_gpu_and_proportional_memory():
    whole = Request.from_wire({})
    assert (whole.memory_fraction, whole.compute, whole.limit) == (1.0, 100, 100)
    half = Request.from_wire({"compute": 50})
    assert half.memory_fraction == 0.5 and half.limit == 100
    mem_only = Request.from_wire({"memory": "2GiB"})
    assert (mem_only.memory, mem_only.compute) == (2 << 30, 0)


@pytest.mark.parametrize("bad", [
    {"compute": 60, "limit": 50}, {"compute": 101}, {"limit": 0}, {"compute": 12.5},
    {"count": 0}, {"policy": "random"}, {"memory": -5}, {"memory_fraction": 1.5},
    {"memory": 10, "memory_fraction": 0.5}, {"compute": True}, {"model": 7},
])
def test_invalid_requests(bad):
    with pytest.raises(RequestError):
        Request.from_wire(bad)


def test_memory_for_fraction_depends_on_gpu():
    r = Request.from_wire({"memory_fraction": 0.25})
    assert r.memory_for(16 << 30) == 4 << 30 and r.memory_for(8 << 30) == 2 << 30
