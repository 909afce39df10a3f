"""py_sites - what py_gil_sites.py and py_lock_sites.py share (imported from
beside them: Python puts a script's folder first on sys.path): their
options, the source line of a marker, and the start and end of their
ground truth.  Their own threads' code stays in each script, so that the
stacks the tests check name the script's file.
"""
import os
import sys
import threading
import time

gate = threading.Event()
tids = {}
ready = threading.Barrier(3)  # the two threads and the main one


def options(script, rounds, hold_ms, ignored=()):
    """The options -r ROUNDS, --hold-ms MS, --gate and --linger (and the
    flags IGNORED) of SCRIPT: (rounds, hold_ms, gate, linger)."""
    gate_, linger = False, False
    args = sys.argv[1:]
    while args:
        a = args.pop(0)
        if a == "-r":
            rounds = int(args.pop(0))
        elif a == "--gate":
            gate_ = True
        elif a == "--linger":
            linger = True
        elif a in ignored:
            pass
        elif a == "--hold-ms":
            hold_ms = int(args.pop(0))
        else:
            sys.exit("%s: unknown argument %r" % (script, a))
    return rounds, hold_ms, gate_, linger


def line_of(func, marker):
    import inspect
    src, first = inspect.getsourcelines(func)
    for i, text in enumerate(src):
        if marker in text:
            return first + i
    raise SystemExit("no line with %r in %s" % (marker, func.__name__))


def start(threads, sites, with_gate):
    """Starts THREADS (two, each of which records its tid in tids under
    its name and waits for ready, then for gate), prints the pid, the
    sites ((name, line) pairs) and the threads' tids, then lets them go:
    with WITH_GATE after `ready` once a line is read from stdin, else 0.5 s
    later."""
    for t in threads:
        t.start()
    ready.wait()
    print("pid=%d" % os.getpid())
    for name, line in sites:
        print("site name=%s line=%d" % (name, line))
    for t in threads:
        print("thread role=%s tid=%d" % (t.name, tids[t.name]))
    if with_gate:
        print("ready")
        sys.stdout.flush()
        sys.stdin.readline()
    else:
        sys.stdout.flush()
        time.sleep(0.5)
    gate.set()


def finish(done, linger):
    """Prints DONE (the `done ...` line); with LINGER then sleeps until it
    is killed (a recorder resolves the Python frames of the stacks it
    copied from the process's memory, which must still be there)."""
    print(done)
    sys.stdout.flush()
    while linger:
        time.sleep(3600)
