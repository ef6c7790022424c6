"""The verifying slots the workers' pools share (service.slots), and the pools' use of
them."""

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
from service.slots import Slots, make_slots


def test_a_slot_is_taken_once_until_given_back(tmp_path):
    made = make_slots(tmp_path, 2)
    one, other = Slots(*made), Slots(*made)  # two processes' views, as two opens
    first = one.take_free()
    second = other.take_free()
    assert {first, second} == {0, 1}
    assert one.take_free() is None and other.take_free() is None
    one.give_back(first)
    one.give_back(first)  # twice: nothing more
    assert other.take_free() == first
    one.close()
    other.close()


def test_take_waits_for_a_slot_given_back(tmp_path):
    made = make_slots(tmp_path, 1)
    holder, waiter = Slots(*made), Slots(*made)
    held = holder.take()
    got: list[int] = []
    thread = threading.Thread(target=lambda: got.append(waiter.take()))
    thread.start()
    time.sleep(0.1)
    assert not got and thread.is_alive()
    holder.give_back(held)
    thread.join(5)
    assert got == [0]
    holder.close()
    waiter.close()


def test_threads_of_one_process_do_not_share_a_slot(tmp_path):
    """flock lets a process lock its own file again: the process's own count decides."""
    slots = Slots(*make_slots(tmp_path, 1))
    with slots.held():
        assert slots.take_free() is None
    assert slots.take_free() == 0
    slots.close()


def test_another_process_sees_the_same_slots_and_its_death_frees_them(tmp_path):
    """Slots are shared through the folder; a holder killed outright leaves none."""
    made = make_slots(tmp_path, 2)
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import time; from service.slots import Slots; "
         f"s = Slots({str(tmp_path)!r}, 2); print(s.take(), s.take(), flush=True); "
         "time.sleep(60)"],
        stdout=subprocess.PIPE, text=True)
    slots = Slots(*made)
    try:
        assert sorted(holder.stdout.readline().split()) == ["0", "1"]
        assert slots.take_free() is None
        os.kill(holder.pid, signal.SIGKILL)
        holder.wait(10)
        assert {slots.take_free(), slots.take_free()} == {0, 1}
    finally:
        holder.kill()
        holder.wait()
        slots.close()


def test_a_slot_is_not_inherited_by_a_spawned_process(tmp_path):
    slots = Slots(*make_slots(tmp_path, 1))
    with slots.held():
        child = subprocess.run(
            [sys.executable, "-c",
             f"from service.slots import Slots; print(Slots({str(tmp_path)!r}, 1)"
             ".take_free())"], capture_output=True, text=True, check=True)
    assert child.stdout.strip() == "None"  # held here, by no inherited descriptor
    slots.close()


def test_at_least_one_slot(tmp_path):
    with pytest.raises(ValueError):
        make_slots(tmp_path, 0)


@pytest.fixture(scope="module")
def lines():
    games = generate_games("gin", 6, seed=5, players=2, rules={"deals": 1})
    return [(k, orjson.dumps(game)) for k, game in enumerate(games, 1)]


def test_a_pool_judges_only_with_a_slot(tmp_path, lines):
    """With the only slot held elsewhere the pool's processes wait; given back, the
    lines are judged, in order, and every slot is free again."""
    made = make_slots(tmp_path, 1)
    elsewhere = Slots(*made)
    verifier = Verifier(2, slots_at=made)
    try:
        held = elsewhere.take()
        wait = verifier.submit(lines, 1 << 20, None, direct=False)
        judged: list = []
        thread = threading.Thread(target=lambda: judged.extend(wait()))
        thread.start()
        thread.join(3)
        assert thread.is_alive() and not judged  # waiting for the slot
        elsewhere.give_back(held)
        thread.join(60)
        assert [e.line for part in judged for e in part.entries] == list(range(1, 7))
        assert all(e.id for part in judged for e in part.entries)
        assert elsewhere.take_free() == 0  # given back by the pool
    finally:
        verifier.close()
        elsewhere.close()
