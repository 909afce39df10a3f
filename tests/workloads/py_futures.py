"""py_futures - a thread blocked in concurrent.futures' Future.result()
(tests/unit/test_rt_cpython.c, tests/live/test_pyenv_live.c).

    python3 py_futures.py --pipe | --starve | --cycle | --busy   (all *hang*)

--pipe: a ThreadPoolExecutor(2) runs one task that reads a pipe nobody
writes; the main thread waits in its Future's result().
--starve: a ThreadPoolExecutor(1) runs task `outer`, which submits task
`inner` to the same executor and waits in inner's result(): inner never
starts (the pool's one thread runs outer); main waits in outer's result().
--cycle: main holds threading.RLock `rl` and waits in result() of a task
that waits to take `rl` (`with rl:`).
--busy: a ThreadPoolExecutor(1) whose thread spins in pure Python (never
asleep) in its first task; main waits in result() of a second task, queued
behind it: not started, but its worker is not blocked (no starvation).

A watcher thread prints, once every thread named is asleep where it should
be (and 0.5 s more, so that each has slept a while):

    future name=outer addr=0x...          (id() of the Future main waits for)
    future name=inner addr=0x...          (--starve: the one the worker waits for)
    lock name=rl addr=0x...               (--cycle)
    pipe rfd=R wfd=W                      (--pipe)
    thread role=main tid=T                (in outer.result())
    thread role=runner tid=T              (the executor's thread running outer;
                                           --busy: running the spinning task)
    ready
"""
import concurrent.futures as cf
import os
import sys
import threading
import time

SYS_READ, SYS_FUTEX = 0, 202


def out(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def syscall_nr(tid):
    try:
        with open("/proc/self/task/%d/syscall" % tid) as f:
            words = f.read().split()
    except OSError:
        return None
    if not words or words[0] in ("running", "-1"):
        return None
    return int(words[0])


def wait_in(tid, nr, timeout=10.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if syscall_nr(tid) == nr:
            return
        time.sleep(0.01)
    sys.stderr.write("tid %d never slept in system call %d\n" % (tid, nr))
    os._exit(1)


def until(cond, what, timeout=10.0):
    end = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > end:
            sys.stderr.write("never: %s\n" % what)
            os._exit(1)
        time.sleep(0.01)


def watch(mode, main_tid, info):
    until(lambda: "runner" in info and "outer" in info, "the task started")
    if mode != "--busy":
        wait_in(info["runner"], SYS_READ if mode == "--pipe" else SYS_FUTEX)
    wait_in(main_tid, SYS_FUTEX)
    time.sleep(0.5)
    # still there: the waits did not move
    if mode != "--busy":
        wait_in(info["runner"], SYS_READ if mode == "--pipe" else SYS_FUTEX, 0.1)
    wait_in(main_tid, SYS_FUTEX, 0.1)
    out("future name=outer addr=0x%x" % id(info["outer"]))
    if "inner" in info:
        out("future name=inner addr=0x%x" % id(info["inner"]))
    if "rl" in info:
        out("lock name=rl addr=0x%x" % id(info["rl"]))
    if "pipe" in info:
        out("pipe rfd=%d wfd=%d" % info["pipe"])
    out("thread role=main tid=%d" % main_tid)
    out("thread role=runner tid=%d" % info["runner"])
    out("ready")


def main(argv):
    mode = argv[0] if argv else ""
    if mode not in ("--pipe", "--starve", "--cycle", "--busy"):
        sys.stderr.write("usage: py_futures.py --pipe | --starve | --cycle | --busy\n")
        return 2
    info = {}
    threading.Thread(target=watch, args=(mode, threading.get_native_id(), info), name="watcher",
                     daemon=True).start()
    if mode == "--pipe":
        r, w = os.pipe()
        info["pipe"] = (r, w)
        ex = cf.ThreadPoolExecutor(2)

        def task():
            info["runner"] = threading.get_native_id()
            return os.read(r, 1)  # nobody writes

        info["outer"] = fu = ex.submit(task)
        fu.result()
    elif mode == "--starve":
        ex = cf.ThreadPoolExecutor(1)

        def inner():
            return 1

        def outer():
            info["inner"] = f = ex.submit(inner)  # queued behind this very task
            info["runner"] = threading.get_native_id()
            return f.result()

        info["outer"] = fu = ex.submit(outer)
        fu.result()
    elif mode == "--busy":
        ex = cf.ThreadPoolExecutor(1)

        def spin():
            info["runner"] = threading.get_native_id()
            while True:  # pure Python: runs, never blocked
                pass

        ex.submit(spin)
        info["outer"] = fu = ex.submit(int)  # queued behind spin
        fu.result()
    else:
        rl = threading.RLock()
        info["rl"] = rl
        ex = cf.ThreadPoolExecutor(2)

        def task(lock):
            info["runner"] = threading.get_native_id()
            with lock:  # main holds it
                return 1

        with rl:
            info["outer"] = fu = ex.submit(task, rl)
            fu.result()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
