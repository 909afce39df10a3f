"""py_procpool.py FILE - the main thread waits in Future.result() for a task
of a concurrent.futures.ProcessPoolExecutor whose worker process waits in
fcntl.flock(FILE, LOCK_EX) for a lock a forked child holds (hangs: the test
kills it and its children).

Prints pid=PID; "holder pid=C" once C holds the lock (C pause()s);
"thread role=waiter idx=0 tid=PID" (main); "worker pid=W" (the pool's
process, printed by the task before its flock); then, once main sleeps in
futex() (its Future.result()) and W in flock(), the watcher thread that
saw it prints "thread role=watcher idx=0 tid=T" and "ready", then exits
(wait for /proc/PID/task/T to be gone: until then a thread of the process
runs).  The executor's
manager thread reads W's result pipe.  Any python3 3.8+."""
import concurrent.futures as cf
import fcntl
import os
import sys
import threading

import wl_flock
import time


def in_call(pid, tid, nr):
    try:
        with open(f"/proc/{pid}/task/{tid}/syscall") as f:
            return f.read().startswith(f"{nr} ")
    except OSError:
        return False


def task(path, main_pid):
    print(f"worker pid={os.getpid()}", flush=True)
    with open(path) as f:
        fcntl.flock(f, fcntl.LOCK_EX)
    return 1


def watch(main_tid, workers):
    """Print ready once main waits in futex() and the worker in flock()."""
    for _ in range(10000):
        if in_call(os.getpid(), main_tid, 202) and workers and \
           all(in_call(w, w, 73) for w in workers):
            print(f"thread role=watcher idx=0 tid={threading.get_native_id()}", flush=True)
            print("ready", flush=True)
            return
        time.sleep(0.001)
    sys.exit("main and the worker did not block")


if __name__ == "__main__":
    path = sys.argv[1]
    print(f"pid={os.getpid()}", flush=True)
    wl_flock.flock_holder(path)
    main_tid = threading.get_native_id()
    print(f"thread role=waiter idx=0 tid={main_tid}", flush=True)
    with cf.ProcessPoolExecutor(1) as ex:
        fut = ex.submit(task, path, os.getpid())
        workers = list(ex._processes)  # the pool's pids, for the ready line
        threading.Thread(target=watch, args=(main_tid, workers), daemon=True).start()
        fut.result()
    sys.exit("the task returned")
