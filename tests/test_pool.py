"""The shared pool of worker processes (service.pool)."""

from __future__ import annotations

import os
import signal
import time
from concurrent.futures.process import BrokenProcessPool

import pytest

from service.pool import Pool

_SETTING = None


def _remember(value):
    global _SETTING
    _SETTING = value


def _slow_square(n: int, delay: float) -> tuple[int, int]:
    time.sleep(delay)
    return n * n, os.getpid()


def _setting(_: int) -> object:
    return _SETTING


def _sigint_action(_: int) -> bool:
    return signal.getsignal(signal.SIGINT) == signal.SIG_IGN


def _fail_on(n: int, bad: int) -> int:
    if n == bad:
        raise ValueError(f"job {n} fails")
    return n


def _die(_: int) -> None:
    os._exit(3)


@pytest.fixture(scope="module")
def pool():
    with Pool(2, _remember, ("set up",)) as p:
        yield p


def test_results_come_in_job_order_whatever_finishes_first(pool):
    # the first jobs sleep longest, so they finish last
    jobs = [(n, 0.05 * (5 - n)) for n in range(6)]
    results = list(pool.ordered(_slow_square, jobs, ahead=4))
    assert [square for square, _ in results] == [n * n for n in range(6)]
    assert len({pid for _, pid in results}) == 2  # both processes worked
    assert os.getpid() not in {pid for _, pid in results}


def test_each_process_is_set_up_and_ignores_ctrl_c(pool):
    assert list(pool.ordered(_setting, [(n,) for n in range(4)], ahead=2)) == ["set up"] * 4
    assert all(pool.ordered(_sigint_action, [(n,) for n in range(4)], ahead=2))


def test_a_failing_job_raises_in_its_turn(pool):
    got = []
    with pytest.raises(ValueError, match="job 3 fails"):
        for n in pool.ordered(_fail_on, [(n, 3) for n in range(8)], ahead=3):
            got.append(n)
    assert got == [0, 1, 2]


def test_a_process_that_dies_breaks_the_pool_loudly():
    with Pool(1) as dying, pytest.raises(BrokenProcessPool):
        list(dying.ordered(_die, [(0,), (1,)], ahead=2))


def test_a_closed_pool_refuses_work():
    closed = Pool(1)
    closed.close()
    with pytest.raises(RuntimeError, match="closed"):
        closed.submit(_setting, 0)
    with pytest.raises(ValueError):
        Pool(0)
