"""The bucket of session opens per tenant (server/open_pacing.py), on a clock the test moves."""
from rgpu.server.open_pacing import OpenPacer


def test_a_burst_at_once_then_the_rate_and_tenants_apart():
    now = [100.0]
    p = OpenPacer(rate=2.0, burst=3, clock=lambda: now[0])
    assert [p.take("mallory") for _ in range(4)] == [True, True, True, False]
    assert not p.may_open("mallory") and p.may_open("alice") and p.take("alice")   # her bucket is her own
    now[0] += 0.4                                     # 0.8 of an open back: not yet
    assert not p.take("mallory")
    now[0] += 0.1
    assert p.take("mallory") and not p.take("mallory")
    now[0] += 60                                      # a long pause refills to the burst, not beyond
    assert [p.take("mallory") for _ in range(4)] == [True, True, True, False]


def test_no_tenant_is_never_paced():
    p = OpenPacer(rate=0.01, burst=1, clock=lambda: 0.0)
    assert all(p.take("") for _ in range(100)) and p.may_open("")
