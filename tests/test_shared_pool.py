"""The pool shared by a server's processes (service.shared_pool), with real processes:
one queue in order for every caller, a caller's jobs spread over every process, and
each failure (a pool process, the dispatcher, a caller hanging up) costing only what
it must."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import orjson
import pytest

from service.shared_pool import LOST, PoolClient, PoolServer

_MARKS: Path | None = None


def _remember(folder: str) -> None:
    global _MARKS
    _MARKS = Path(folder)


def _job(name: str, seconds: float) -> tuple[str, int]:
    """Say it started (a file named after the job, holding the time), wait, answer."""
    assert _MARKS is not None
    # Written beside the folder, then moved in: a mark is never seen half written.
    draft = _MARKS.parent / f"{name}.{os.getpid()}.draft"
    draft.write_text(f"{time.monotonic()!r} {os.getpid()}")
    os.replace(draft, _MARKS / name)
    time.sleep(seconds)
    if name.startswith("fail"):
        raise ValueError(f"{name} fails")
    return name, os.getpid()


def started(marks: Path) -> list[str]:
    """The jobs started so far, in the order they started."""
    return sorted((p.name for p in marks.iterdir()),
                  key=lambda name: float((marks / name).read_text().split()[0]))


def runner_of(marks: Path, name: str) -> int:
    """The process that started a job."""
    return int((marks / name).read_text().split()[1])


def wait_for(condition, what: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.02)


def pool_processes(server: PoolServer) -> set[int]:
    out = subprocess.run(["pgrep", "-P", str(server.pid)], capture_output=True, text=True)
    return {int(pid) for pid in out.stdout.split()}


@pytest.fixture
def marks(tmp_path) -> Path:
    folder = tmp_path / "marks"
    folder.mkdir()
    return folder


def serve(processes: int, marks: Path) -> tuple[PoolServer, PoolClient]:
    server = PoolServer(processes, f"{__name__}:_job", f"{__name__}:_remember", (str(marks),))
    wait_for(lambda: len(pool_processes(server)) == processes, "the pool did not start")
    return server, PoolClient(*server.where)


@contextmanager
def serving(processes: int, marks: Path) -> Iterator[tuple[PoolServer, PoolClient]]:
    server, client = serve(processes, marks)
    try:
        yield server, client
    finally:
        server.close()


def test_a_lone_callers_jobs_run_on_every_process_answered_in_order(marks):
    with serving(2, marks) as (server, client):
        call = client.call([("a", 0.5), ("b", 0.5), ("fail-c", 0.0)])
        answers = call.answers()
        assert [a[0] for a in answers] == ["ok", "ok", "error"]
        assert [a[1][0] for a in answers[:2]] == ["a", "b"]
        assert answers[2][1] == "ValueError: fail-c fails"
        assert answers[0][1][1] != answers[1][1][1]  # two processes, at once
        assert {answers[0][1][1], answers[1][1][1]} == pool_processes(server)


def test_callers_take_turns_in_the_order_their_jobs_came(marks):
    with serving(1, marks) as (server, client):
        first = client.call([("a1", 0.4), ("a2", 0.1)])
        wait_for(lambda: started(marks) == ["a1"], "the first job did not start")
        second = client.call([("b1", 0.1)])
        time.sleep(0.1)
        third = client.call([("a3", 0.1)])  # the first caller again, after the second
        assert [a[1][0] for a in first.answers()] == ["a1", "a2"]
        assert second.answers()[0][1][0] == "b1"
        assert third.answers()[0][1][0] == "a3"
        assert started(marks) == ["a1", "a2", "b1", "a3"]


def test_a_killed_pool_process_loses_only_its_job_and_is_replaced(marks):
    with serving(2, marks) as (server, client):
        call = client.call([("doomed", 30.0), ("fine", 0.5)])
        wait_for(lambda: {"doomed", "fine"} <= set(started(marks)), "the jobs did not start")
        victim = runner_of(marks, "doomed")
        os.kill(victim, signal.SIGKILL)
        lost, fine = call.answers()
        assert lost[0] == LOST and "ended" in lost[1]
        assert fine[0] == "ok" and fine[1][0] == "fine"
        wait_for(lambda: len(pool_processes(server)) == 2 and victim not in pool_processes(server),
                 "the killed process was not replaced")
        again = client.call([("after", 0.0), ("after-2", 0.0)]).answers()
        assert [a[0] for a in again] == ["ok", "ok"]


def test_a_killed_dispatcher_loses_the_calls_in_flight_and_comes_back(marks):
    with serving(1, marks) as (server, client):
        call = client.call([("cut", 5.0)])
        wait_for(lambda: started(marks) == ["cut"], "the job did not start")
        old, pool = server.pid, pool_processes(server)
        os.kill(old, signal.SIGKILL)
        [answer] = call.answers()
        assert answer[0] == LOST and "dispatcher" in answer[1]
        wait_for(lambda: server.restarts == 1, "the dispatcher was not started again")
        assert server.pid != old
        wait_for(lambda: not any(_alive(pid) for pid in pool),
                 "the old dispatcher's processes live on", timeout=15)
        again = client.call([("back", 0.0)])
        assert again is not None and again.answers()[0][0] == "ok"


def test_a_caller_that_hangs_up_drops_its_jobs_not_started(marks):
    with serving(1, marks) as (server, client):
        busy = client.call([("busy", 0.5)])
        wait_for(lambda: started(marks) == ["busy"], "the job did not start")
        gone = client.call([("never-1", 0.0), ("never-2", 0.0)])
        time.sleep(0.1)  # queued behind the busy one
        gone._conn.close()  # the request ended without waiting (its client went away)
        time.sleep(0.3)  # the dispatcher sees the hang-up
        assert busy.answers()[0][0] == "ok"
        after = client.call([("after", 0.0)]).answers()
        assert after[0][0] == "ok"
        assert started(marks) == ["busy", "after"]


def test_an_unreachable_pool_is_said_and_close_ends_every_process(marks):
    server, client = serve(2, marks)
    dispatcher, pool = server.pid, pool_processes(server)
    server.close()
    assert not _alive(dispatcher)
    wait_for(lambda: not any(_alive(pid) for pid in pool), "a pool process outlived close")
    assert client.call([("late", 0.0)]) is None
    assert not os.path.exists(server.address)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie not reaped yet is gone for this test's purpose
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_a_pool_process_ended_while_idle_is_replaced_before_any_job(marks):
    with serving(1, marks) as (server, client):
        [victim] = pool_processes(server)
        os.kill(victim, signal.SIGKILL)
        wait_for(lambda: pool_processes(server) - {victim}, "the idle process was not replaced")
        assert client.call([("next", 0.0)]).answers()[0][0] == "ok"
        assert started(marks) == ["next"]


# --------------------------------------------------------------------------- the verifier

def _lines(*logs: dict) -> list[tuple[int, bytes | None]]:
    return [(number, orjson.dumps(log)) for number, log in enumerate(logs, start=1)]


def test_the_shared_verifier_judges_in_the_pool_and_here_when_it_is_gone():
    """Over the master's pool the verifier gets the same verdicts as judged in the
    request thread, one part per process; with the pool gone, it judges here."""
    from service.api.verifier import SharedVerifier, judge_all
    from tests.api.helpers import illegal, malformed, valid

    lines = _lines(valid(id="one"), illegal(), malformed(), valid(id="two"), valid(id="three"))
    expected, rows = judge_all(lines, 1 << 20, "tester")
    server = PoolServer(2, "service.api.verifier:judge_part",
                        "service.api.verifier:connect_to_store", (None,))
    try:
        verifier = SharedVerifier(*server.where, 2)
        parts = verifier.submit(lines, 1 << 20, "tester")()
        assert [len(part.entries) for part in parts] == [3, 2]
        assert [e for part in parts for e in part.entries] == expected
        assert sum(len(part.rows) for part in parts) == len(rows) == 4  # no store: rows back
    finally:
        server.close()
    [alone] = verifier.submit(lines, 1 << 20, "tester")()
    assert alone.entries == expected and len(alone.rows) == 4


def test_a_lost_or_failed_part_answers_each_of_its_lines():
    from service.api.verifier import _part_of

    chunk = [(7, b"{}"), (8, b"{}")]
    lost = _part_of((LOST, "the pool process ended (exit code -9) while running this job"),
                    chunk)
    assert [e.line for e in lost.entries] == [7, 8]
    assert all(e.error["type"] == "/problems/verifier-unavailable" and e.error["status"] == 503
               and not e.bad and e.id is None for e in lost.entries)
    assert "exit code -9" in lost.entries[0].error["detail"]
    failed = _part_of(("error", "MemoryError: "), chunk)
    assert [e.error["status"] for e in failed.entries] == [500, 500]
    assert [e.log for e in failed.entries] == ["MemoryError: ", None]  # logged once


def test_a_wrong_key_or_a_message_that_is_no_call_is_hung_up_on(marks, capfd):
    from multiprocessing import AuthenticationError
    from multiprocessing.connection import Client

    with serving(1, marks) as (server, client):
        address, key = server.where
        with pytest.raises(AuthenticationError):
            Client(address, family="AF_UNIX", authkey=b"not the key")
        for send in (lambda c: c.send_bytes(b"\x80\x05garbage"), lambda c: c.send(42),
                     lambda c: c.send(["no tuple"]), lambda c: c.send([("x", 0.0), 7])):
            conn = Client(address, family="AF_UNIX", authkey=key)
            send(conn)
            with pytest.raises(EOFError):
                conn.recv()  # hung up on, no answer
            conn.close()
        assert client.call([("fine", 0.0)]).answers()[0][0] == "ok"
        assert started(marks) == ["fine"]  # nothing of the others ran
    assert "Traceback" not in capfd.readouterr().err
