"""py_futures - a thread blocked in concurrent.futures' Future.result()
(tests/unit/test_rt_cpython.c, tests/live/test_pyenv_live.c).

    python3 py_futures.py --pipe | --starve | --cycle | --busy   (all *hang*)
    python3 py_futures.py --wait-all | --wait-first | --as-completed | --wait-first-sleep | --wait-all-cycle

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

--wait-all, --wait-first, --as-completed: a ThreadPoolExecutor(2) runs two
tasks, each reading a pipe nobody writes; the main thread waits for both in
concurrent.futures.wait() (return_when ALL_COMPLETED, FIRST_COMPLETED) or
iterates as_completed() over them.
--wait-first-sleep: as --wait-first, but the second task sleeps in
time.sleep(3600) (a timer: it ends by itself) instead of reading.
--wait-all-cycle: as --wait-all, but main holds threading.RLock `rl` while
it waits, and the second task waits to take `rl` (`with rl:`).

A watcher thread prints, once every thread named is asleep where it should
be (and 0.5 s more, so that each has slept a while):

    future name=outer addr=0x...          (id() of the Future main waits for)
    future name=inner addr=0x...          (--starve: the one the worker waits for)
    lock name=rl addr=0x...               (--cycle)
    pipe rfd=R wfd=W                      (--pipe)
    thread role=main tid=T                (in outer.result())
    thread role=runner tid=T              (the executor's thread running outer;
                                           --busy: running the spinning task)
    thread role=watcher tid=T             (the thread printing this, which
                                           exits after "ready")
    ready

or, for the wait()/as_completed() modes:

    future name=f0 addr=0x...             (the first task's Future)
    future name=f1 addr=0x...             (the second's)
    pipe rfd=R wfd=W
    thread role=main tid=T                (in wait() / as_completed())
    thread role=runner0 tid=T             (running f0: in read(R))
    thread role=runner1 tid=T             (running f1: in read(R), or
                                           --wait-first-sleep: in time.sleep,
                                           --wait-all-cycle: waiting for rl)
    lock name=rl addr=0x...               (--wait-all-cycle)
    thread role=watcher tid=T             (as above)
    ready
"""
import concurrent.futures as cf
import os
import sys
import threading
import time

SYS_READ, SYS_FUTEX, SYS_PSELECT6, SYS_CLOCK_NANOSLEEP = 0, 202, 270, 230
WAIT_MODES = ("--wait-all", "--wait-first", "--as-completed", "--wait-first-sleep", "--wait-all-cycle")


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
    if info.get("rl") is not None:
        out("lock name=rl addr=0x%x" % id(info["rl"]))
    if "pipe" in info:
        out("pipe rfd=%d wfd=%d" % info["pipe"])
    out("thread role=main tid=%d" % main_tid)
    out("thread role=runner tid=%d" % info["runner"])
    out("thread role=watcher tid=%d" % threading.get_native_id())  # gone soon after: the test waits for it
    out("ready")


def watch_many(mode, main_tid, info):
    until(lambda: "runner0" in info and "runner1" in info and "f1" in info, "both tasks started")
    wait_in(info["runner0"], SYS_READ)
    # time.sleep: clock_nanosleep (3.11+) or select(), pselect6 in glibc (3.8-3.10)
    sleeps = SYS_CLOCK_NANOSLEEP if sys.version_info >= (3, 11) else SYS_PSELECT6
    second = {"--wait-first-sleep": sleeps, "--wait-all-cycle": SYS_FUTEX}.get(mode, SYS_READ)
    wait_in(info["runner1"], second)
    wait_in(main_tid, SYS_FUTEX)
    time.sleep(0.5)
    wait_in(info["runner0"], SYS_READ, 0.1)
    wait_in(info["runner1"], second, 0.1)
    wait_in(main_tid, SYS_FUTEX, 0.1)
    out("future name=f0 addr=0x%x" % id(info["f0"]))
    out("future name=f1 addr=0x%x" % id(info["f1"]))
    out("pipe rfd=%d wfd=%d" % info["pipe"])
    if info.get("rl") is not None:
        out("lock name=rl addr=0x%x" % id(info["rl"]))
    out("thread role=main tid=%d" % main_tid)
    out("thread role=runner0 tid=%d" % info["runner0"])
    out("thread role=runner1 tid=%d" % info["runner1"])
    out("thread role=watcher tid=%d" % threading.get_native_id())  # gone soon after: the test waits for it
    out("ready")


def wait_many(mode, info):
    r, w = os.pipe()
    info["pipe"] = (r, w)
    ex = cf.ThreadPoolExecutor(2)
    info["rl"] = rl = threading.RLock() if mode == "--wait-all-cycle" else None

    def task(k):
        info["runner%d" % k] = threading.get_native_id()
        if k == 1 and mode == "--wait-first-sleep":
            time.sleep(3600)  # a timer: ends by itself
            return None
        if k == 1 and rl is not None:
            with rl:  # main holds it
                return None
        return os.read(r, 1)  # nobody writes

    info["f0"] = f0 = ex.submit(task, 0)
    until(lambda: "runner0" in info, "task 0 started")  # f0 runs on the pool's first thread
    if rl is not None:
        rl.acquire()
    info["f1"] = f1 = ex.submit(task, 1)
    if mode in ("--wait-all", "--wait-all-cycle"):
        cf.wait([f0, f1])
    elif mode == "--as-completed":
        for _ in cf.as_completed([f0, f1]):
            pass
    else:
        cf.wait([f0, f1], return_when=cf.FIRST_COMPLETED)


def main(argv):
    mode = argv[0] if argv else ""
    if mode not in ("--pipe", "--starve", "--cycle", "--busy") + WAIT_MODES:
        sys.stderr.write("usage: py_futures.py --pipe | --starve | --cycle | --busy | --wait-all | --wait-first "
                         "| --as-completed | --wait-first-sleep | --wait-all-cycle\n")
        return 2
    info = {}
    if mode in WAIT_MODES:
        threading.Thread(target=watch_many, args=(mode, threading.get_native_id(), info), name="watcher",
                         daemon=True).start()
        wait_many(mode, info)
        return 0
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
