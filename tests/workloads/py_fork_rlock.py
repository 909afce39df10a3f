"""py_fork_rlock - a threading.RLock copied locked by os.fork().

    python3 py_fork_rlock.py [--no-wait]

Thread "holder" takes the RLock R and sleeps holding it; main then forks.
The child has only the forking thread: its copy of R records an owner that
is no thread of the child, and the child blocks in R.acquire() for ever.
The child dies with the parent (PR_SET_PDEATHSIG).  Prints:

    pid=PID
    thread role=holder idx=0 tid=TH
    child pid=CPID
    blocked pid=CPID tid=CPID on=R
    ready
"""
import ctypes
import os
import signal
import sys
import threading
import time
import warnings

sys.stdout.reconfigure(line_buffering=True) if hasattr(sys.stdout, "reconfigure") else None
warnings.simplefilter("ignore")  # 3.12+: DeprecationWarning on fork with threads

R = threading.RLock()
held = threading.Event()


def holder():
    with R:
        print("thread role=holder idx=0 tid=%d" % threading.get_native_id(), flush=True)
        held.set()
        while True:
            time.sleep(3600)


def in_futex(pid, tid):
    try:
        with open("/proc/%d/task/%d/syscall" % (pid, tid)) as f:
            return f.read().split()[0] == "202"
    except (OSError, IndexError):
        return False


def main():
    no_wait = "--no-wait" in sys.argv[1:]
    print("pid=%d" % os.getpid(), flush=True)
    threading.Thread(target=holder, name="holder", daemon=True).start()
    held.wait()
    sys.stdout.flush()
    parent = os.getpid()
    child = os.fork()
    if child == 0:
        libc = ctypes.CDLL(None)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        if os.getppid() != parent:
            os._exit(1)
        R.acquire()  # its owner is the parent's holder: for ever
        os._exit(2)
    print("child pid=%d" % child, flush=True)
    for _ in range(10000):
        if in_futex(child, child):
            break
        time.sleep(0.001)
    else:
        print("child %d did not block in futex()" % child, file=sys.stderr)
        sys.exit(1)
    print("blocked pid=%d tid=%d on=R" % (child, child), flush=True)
    print("ready", flush=True)
    if not no_wait:
        sys.stdin.readline()
    while True:
        time.sleep(3600)


main()
