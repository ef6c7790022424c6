"""The verifying slots the workers' pools share (service.slots), and the verifier's use
of them."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time

import orjson
import pytest

from service.api.verifier import Verifier
from service.generator import generate_games
from service.slots import Slots


def test_take_gives_the_free_slots_up_to_the_wanted_count(tmp_path):
    slots = Slots(tmp_path, 3)
    first = slots.take(2)
    assert len(first) == 2
    third = slots.take_free(5)
    assert len(third) == 1  # the third, and only it
    assert slots.take_free(1) == []
    first[0].release()
    first[0].release()  # twice: nothing more
    again = slots.take_free(5)
    assert len(again) == 1
    del again, third  # forgotten slots are given back
    assert len(slots.take_free(5)) == 2


def test_take_waits_for_a_slot_given_back(tmp_path):
    slots = Slots(tmp_path, 1)
    [held] = slots.take(1)
    got: list = []
    waiter = threading.Thread(target=lambda: got.extend(slots.take(1)))
    waiter.start()
    time.sleep(0.1)
    assert not got and waiter.is_alive()
    held.release()
    waiter.join(5)
    assert len(got) == 1


def test_another_process_sees_the_same_slots_and_its_death_frees_them(tmp_path):
    """Slots are shared through the folder; a holder killed outright leaves none."""
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import sys, time; from service.slots import Slots; "
         f"s = Slots({str(tmp_path)!r}, 2).take(2); print(len(s), flush=True); "
         "time.sleep(60)"],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "2"
        slots = Slots(tmp_path, 2)
        assert slots.take_free(2) == []
        os.kill(holder.pid, signal.SIGKILL)
        holder.wait(10)
        assert len(slots.take_free(2)) == 2
    finally:
        holder.kill()
        holder.wait()


def test_a_slot_is_not_inherited_by_a_spawned_process(tmp_path):
    slots = Slots(tmp_path, 1)
    [held] = slots.take(1)
    child = subprocess.run(
        [sys.executable, "-c",
         f"from service.slots import Slots; print(len(Slots({str(tmp_path)!r}, 1)"
         ".take_free(1)))"], capture_output=True, text=True, check=True)
    assert child.stdout.strip() == "0"  # held by this process, not by an inherited fd
    held.release()


def test_at_least_one_slot():
    with pytest.raises(ValueError):
        Slots("unused", 0)


@pytest.fixture(scope="module")
def lines():
    games = generate_games("gin", 6, seed=5, players=2, rules={"deals": 1})
    return [(k, orjson.dumps(game)) for k, game in enumerate(games, 1)]


def test_the_lines_go_to_as_many_processes_as_slots_are_free(tmp_path, lines):
    """A pool of two with one slot free judges in one part; with both free, in two;
    every slot is given back once the parts are judged."""
    slots = Slots(tmp_path, 2)
    verifier = Verifier(2, slots=slots)
    try:
        [other] = slots.take(1)
        parts = verifier.submit(lines, 1 << 20, None, direct=False)()
        assert [len(part.entries) for part in parts] == [6]
        other.release()
        _wait_until_all_free(slots)
        parts = verifier.submit(lines, 1 << 20, None, direct=False)()
        assert [len(part.entries) for part in parts] == [3, 3]
        assert [e.line for part in parts for e in part.entries] == list(range(1, 7))
        _wait_until_all_free(slots)
    finally:
        verifier.close()


def _wait_until_all_free(slots: Slots) -> None:
    """The parts' callbacks give their slots back just after their results are in."""
    deadline = time.monotonic() + 5
    while len(slots.take_free(slots.count)) < slots.count:  # those taken go back at once
        assert time.monotonic() < deadline, "a slot was not given back"
        time.sleep(0.01)
