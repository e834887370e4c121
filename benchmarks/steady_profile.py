"""Run a Python module under a profiler that records only between two signals: the steady state of a
server, without its start-up.

    python steady_profile.py OUT -m MODULE [ARGS...]

SIGUSR1 starts cProfile (on the main thread, where the server's event loop runs), SIGUSR2 stops it
and writes the stats to OUT. The harness makes its warm-up calls first, then signals, then times.
"""

from __future__ import annotations

import cProfile
import runpy
import signal
import sys

PROFILE = cProfile.Profile()
OUT: list[str] = []  # where SIGUSR2 writes the stats (sys.argv is the module's by then)


def _start(*_: object) -> None:
    PROFILE.enable()


def _stop(*_: object) -> None:
    PROFILE.disable()
    PROFILE.dump_stats(OUT[0])


def main() -> None:
    out, flag, module, *rest = sys.argv[1:]
    if flag != "-m":
        raise SystemExit("usage: steady_profile.py OUT -m MODULE [ARGS...]")
    OUT.append(out)
    signal.signal(signal.SIGUSR1, _start)
    signal.signal(signal.SIGUSR2, _stop)
    sys.argv = [module, *rest]  # as `python -m MODULE ARGS` would see them
    runpy.run_module(module, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
