"""py_gone_holder - Python locks whose recorded holder thread has exited.

    python3 py_gone_holder.py gil|rlock

gil: two threads "spin-I" run Python for ever; then thread "holder", which
  then holds the GIL, calls pthread_exit() through ctypes.PyDLL (which keeps
  the GIL across the call): it exits holding the GIL, whose last_holder
  still names it.  The spinners wait for the GIL for ever; main sleeps
  (the holder exits only once main sleeps in clock_nanosleep, so main
  never waits for the GIL).  The holder prints its lines itself, just
  before it exits (nobody else can run Python after).
rlock: thread "owner" acquires threading.RLock R; two threads "waiter-I"
  block in R.acquire(); the owner then returns without releasing R and is
  joined: R's recorded owner (its pthread_t) is no thread any more.
Prints:

    pid=PID
    thread role=spin|waiter idx=I tid=T        (2 lines)
    holder tid=T ident=0x...                   (gil: the GIL's holder;
                                                rlock: R's owner, then joined)
    ready
"""
import ctypes
import os
import sys
import threading
import time

sys.stdout.reconfigure(line_buffering=True) if hasattr(sys.stdout, "reconfigure") else None


def in_futex(tid):
    for _ in range(10000):
        try:
            with open("/proc/self/task/%d/syscall" % tid) as f:
                if f.read().split()[0] == "202":
                    return True
        except OSError:
            pass
        time.sleep(0.001)
    return False


def gil():
    def spin(idx):
        print("thread role=spin idx=%d tid=%d" % (idx, threading.get_native_id()))
        n = 0
        while True:
            n += 1

    for i in range(2):
        threading.Thread(target=spin, args=(i,), name="spin-%d" % i, daemon=True).start()
    time.sleep(0.2)

    def holder():
        # main must be in its last sleep (clock_nanosleep, 230) first:
        # otherwise it waits for the GIL too, returning from start()
        for _ in range(10000):
            try:
                with open("/proc/self/task/%d/syscall" % os.getpid()) as f:
                    if f.read().split()[0] == "230":
                        break
            except OSError:
                pass
            time.sleep(0.001)
        else:
            print("py_gone_holder: main never slept", file=sys.stderr)
            os._exit(1)
        print("holder tid=%d ident=0x%x" % (threading.get_native_id(), threading.get_ident()))
        print("ready")
        sys.stdout.flush()
        ctypes.PyDLL(None).pthread_exit(None)  # with the GIL held

    threading.Thread(target=holder, name="holder", daemon=True).start()
    while True:
        time.sleep(3600)


def rlock():
    R = threading.RLock()
    taken = threading.Event()
    leave = threading.Event()

    def owner():
        R.acquire()
        taken.set()
        leave.wait()  # and return without R.release()

    o = threading.Thread(target=owner, name="owner")
    o.start()
    taken.wait()
    tids = [0, 0]

    def waiter(idx):
        tids[idx] = threading.get_native_id()
        R.acquire()

    for i in range(2):
        threading.Thread(target=waiter, args=(i,), name="waiter-%d" % i, daemon=True).start()
        while not tids[i]:
            time.sleep(0.001)
        print("thread role=waiter idx=%d tid=%d" % (i, tids[i]))
        if not in_futex(tids[i]):
            sys.exit("py_gone_holder: waiter %d never slept in futex()" % tids[i])
    print("holder tid=%d ident=0x%x" % (o.native_id, o.ident))
    leave.set()
    o.join()
    print("ready")
    while True:
        time.sleep(3600)


if __name__ == "__main__":
    print("pid=%d" % os.getpid())
    {"gil": gil, "rlock": rlock}[sys.argv[1]]()
