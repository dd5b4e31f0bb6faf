"""The job's deadline on a fake clock: what is left, when it has passed, how it caps."""

from __future__ import annotations

import threading

from regrapht_core.contracts.deadline import NO_DEADLINE, Deadline


def test_a_deadline_counts_down_on_its_clock_and_caps_timeouts() -> None:
    now = [100.0]
    deadline = Deadline.after(60.0, clock=lambda: now[0])
    assert deadline.remaining() == 60.0 and not deadline.expired
    assert deadline.cap(120.0) == 60.0
    assert deadline.cap(5.0) == 5.0
    assert deadline.cap(None) == 60.0
    now[0] = 150.0
    assert deadline.remaining() == 10.0 and deadline.cap(120.0) == 10.0
    now[0] = 170.0
    assert deadline.expired
    assert deadline.remaining() == 0.0 and deadline.cap(120.0) == 0.0


def test_no_deadline_never_expires_and_leaves_timeouts_alone() -> None:
    assert Deadline.after(None) == NO_DEADLINE
    assert NO_DEADLINE.remaining() is None and not NO_DEADLINE.expired
    assert NO_DEADLINE.cap(120.0) == 120.0 and NO_DEADLINE.cap(None) is None


def test_work_stops_when_the_deadline_passes_or_the_job_is_cancelled() -> None:
    now = [0.0]
    deadline = Deadline.after(5.0, clock=lambda: now[0])
    cancel = threading.Event()
    assert not deadline.stops(None)
    assert not deadline.stops(cancel)
    cancel.set()
    assert deadline.stops(cancel)
    now[0] = 5.0
    assert deadline.stops(None)
    assert not NO_DEADLINE.stops(threading.Event())
