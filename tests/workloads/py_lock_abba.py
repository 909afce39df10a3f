"""py_lock_abba - two threading.Locks taken in opposite orders in `with`
blocks: a deadlock no lock records (a Lock has no owner field).

    python3 py_lock_abba.py [--no-wait]

Thread "worker-AB" runs `with lock_a:` then `with lock_b:`, thread
"worker-BA" `with lock_b:` then `with lock_a:` (module globals: no local
variable refers to them), meeting at a barrier in between.  The main
thread then joins worker-AB (a join, not a lock wait).  main checks through
/proc that both workers sleep in futex() on the semaphore of the lock they
want and prints:

    pid=PID
    lock name=lock_a addr=0x... kind=semaphore
    lock name=lock_b addr=0x... kind=semaphore
    thread role=AB idx=0 tid=TA
    thread role=BA idx=0 tid=TB
    blocked tid=TA on=lock_b holds=lock_a
    blocked tid=TB on=lock_a holds=lock_b
    thread role=main idx=0 tid=PID joins=TA
    ready
"""
import ctypes
import os
import sys
import threading
import time

lock_a = threading.Lock()
lock_b = threading.Lock()
meet = threading.Barrier(2)
tids = {}


def sem_addr(lock):
    return ctypes.c_void_p.from_address(id(lock) + 16).value


def in_futex_on(tid, addr):
    try:
        with open("/proc/self/task/%d/syscall" % tid) as f:
            w = f.read().split()
        return w[0] == "202" and addr <= int(w[1], 16) < addr + 8
    except (OSError, IndexError, ValueError):
        return False


def worker_ab():
    tids["AB"] = threading.get_native_id()
    with lock_a:
        meet.wait()
        with lock_b:  # never entered
            pass


def worker_ba():
    tids["BA"] = threading.get_native_id()
    with lock_b:
        meet.wait()
        with lock_a:  # never entered
            pass


def wait_blocked(tid, addr):
    for _ in range(10000):
        if in_futex_on(tid, addr):
            return
        time.sleep(0.001)
    sys.stderr.write("thread %d never slept on 0x%x\n" % (tid, addr))
    sys.exit(1)


def main():
    no_wait = "--no-wait" in sys.argv[1:]
    print("pid=%d" % os.getpid(), flush=True)
    a, b = sem_addr(lock_a), sem_addr(lock_b)
    print("lock name=lock_a addr=0x%x kind=semaphore" % a, flush=True)
    print("lock name=lock_b addr=0x%x kind=semaphore" % b, flush=True)
    ta = threading.Thread(target=worker_ab, name="worker-AB", daemon=True)
    tb = threading.Thread(target=worker_ba, name="worker-BA", daemon=True)
    ta.start()
    tb.start()
    while len(tids) < 2:
        time.sleep(0.001)
    print("thread role=AB idx=0 tid=%d" % tids["AB"], flush=True)
    print("thread role=BA idx=0 tid=%d" % tids["BA"], flush=True)
    wait_blocked(tids["AB"], b)
    wait_blocked(tids["BA"], a)
    print("blocked tid=%d on=lock_b holds=lock_a" % tids["AB"], flush=True)
    print("blocked tid=%d on=lock_a holds=lock_b" % tids["BA"], flush=True)
    print("thread role=main idx=0 tid=%d joins=%d" % (threading.get_native_id(), tids["AB"]), flush=True)
    print("ready", flush=True)
    if not no_wait:
        sys.stdin.readline()
    ta.join()


main()
