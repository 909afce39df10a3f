"""py_mp_killed - a multiprocessing.Lock whose holder process was SIGKILLed.

    python3 py_mp_killed.py [--no-wait]

Main creates multiprocessing.Lock L (a POSIX semaphore in shared memory),
forks a holder process that acquires L and sleeps, then starts 3 threads
"waiter-I" that block in L.acquire().  Once the 3 are asleep in futex()
main SIGKILLs the holder and reaps it: L stays taken for ever, its holder
gone (a semaphore records no holder; this process never held it).  Main
then sleeps in the start gate (reading stdin) unless --no-wait, then for
ever.  Prints:

    pid=PID
    lock name=L addr=0x... kind=sem            (the sem_t, its futex word)
    holder pid=HPID                            (it has acquired L)
    thread role=waiter idx=I tid=T             (3 lines)
    blocked tid=T on=L                         (3 lines: in futex())
    killed pid=HPID                            (SIGKILLed and reaped)
    ready
"""
import multiprocessing
import os
import signal
import sys
import threading
import time

sys.stdout.reconfigure(line_buffering=True) if hasattr(sys.stdout, "reconfigure") else None


def hold(lock, acquired):
    lock.acquire()
    acquired.set()
    while True:
        time.sleep(3600)


def wait_on(lock, idx, tids):
    tids[idx] = threading.get_native_id()
    lock.acquire()  # never returns: the holder is killed holding it


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


def main():
    ctx = multiprocessing.get_context("fork")
    lock = ctx.Lock()
    acquired = ctx.Event()
    print("pid=%d" % os.getpid())
    print("lock name=L addr=0x%x kind=sem" % lock._semlock.handle)
    holder = ctx.Process(target=hold, args=(lock, acquired), daemon=True)
    holder.start()
    if not acquired.wait(30):
        sys.exit("py_mp_killed: the holder never acquired L")
    print("holder pid=%d" % holder.pid)
    tids = [0, 0, 0]
    for i in range(3):
        t = threading.Thread(target=wait_on, args=(lock, i, tids), name="waiter-%d" % i, daemon=True)
        t.start()
        while not tids[i]:
            time.sleep(0.001)
        print("thread role=waiter idx=%d tid=%d" % (i, tids[i]))
        if not in_futex(tids[i]):
            sys.exit("py_mp_killed: waiter %d never slept in futex()" % tids[i])
        print("blocked tid=%d on=L" % tids[i])
    os.kill(holder.pid, signal.SIGKILL)
    holder.join()
    print("killed pid=%d" % holder.pid)
    print("ready")
    if "--no-wait" not in sys.argv[1:]:
        sys.stdin.readline()
    while True:
        time.sleep(3600)


if __name__ == "__main__":
    main()
