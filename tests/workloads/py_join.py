"""py_join.py FILE - the main thread Thread.join()s a thread that waits in
fcntl.flock(FILE, LOCK_EX) for a lock a forked child holds (hangs: the
test kills it and its child).

Prints pid=PID; "holder pid=C" once C holds the lock (C pause()s);
"thread role=joiner idx=0 tid=PID" (main); the joined thread, named
"worker", prints "thread role=joined idx=0 tid=T", waits until main sleeps
in futex() (its join), then prints "blocked tid=PID on=join",
"blocked tid=T on=flock" and ready, and calls flock(): the test waits until
/proc shows it there.  Two threads; any python3 3.8+."""
import fcntl
import os
import sys
import threading

import wl_flock
import time

path = sys.argv[1]
print(f"pid={os.getpid()}", flush=True)
wl_flock.flock_holder(path)
main_tid = threading.get_native_id()
print(f"thread role=joiner idx=0 tid={main_tid}", flush=True)


def in_futex(tid):
    try:
        with open(f"/proc/self/task/{tid}/syscall") as f:
            return f.read().startswith("202 ")
    except OSError:
        return False


def worker():
    tid = threading.get_native_id()
    print(f"thread role=joined idx=0 tid={tid}", flush=True)
    for _ in range(10000):
        if in_futex(main_tid):
            break
        time.sleep(0.001)
    else:
        sys.exit("main did not block in join")
    print(f"blocked tid={main_tid} on=join", flush=True)
    print(f"blocked tid={tid} on=flock", flush=True)
    print("ready", flush=True)
    with open(path) as f:
        fcntl.flock(f, fcntl.LOCK_EX)


t = threading.Thread(target=worker, name="worker")
t.start()
t.join()
sys.exit("join returned")
