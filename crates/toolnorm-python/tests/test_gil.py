"""The GIL is released while a stream is read: another Python thread runs meanwhile."""

import sys
import threading

import pytest

import toolnorm
from conftest import FIXTURES


@pytest.fixture
def big():
    """A few megabytes of one recording, repeated."""
    return (FIXTURES / "codex-exec" / "shell-ok.jsonl").read_bytes() * 2000


@pytest.fixture
def no_forced_switches():
    """A switch interval so long that a thread holding the GIL keeps it until it
    releases it itself (blocking, or code that releases it)."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(1000)
    yield
    sys.setswitchinterval(before)


def ran_meanwhile(work):
    """Whether this thread ran Python code while another thread was inside `work()`."""
    ready = threading.Event()
    done = []

    def other():
        ready.set()
        work()
        done.append(True)

    thread = threading.Thread(target=other)
    thread.start()
    # Woken when `other` sets `ready`, this thread gets the GIL only when `other`
    # releases it: inside `work()` if it releases the GIL, else once it has ended.
    ready.wait()
    meanwhile = not done
    thread.join()
    return meanwhile


def test_normalize_releases_the_gil(big, no_forced_switches):
    assert ran_meanwhile(lambda: toolnorm.normalize(big))


def test_push_releases_the_gil(big, no_forced_switches):
    normalizer = toolnorm.Normalizer()
    assert ran_meanwhile(lambda: normalizer.push(big))
    normalizer.finish()


def test_a_function_that_holds_the_gil_is_told_apart(no_forced_switches):
    # The check itself: pure Python work holds the GIL (no forced switch), so this
    # thread cannot run until it is over.
    assert not ran_meanwhile(lambda: sum(range(3_000_000)))
