"""gil_holder - a Python process stuck because one thread holds the GIL.

    /usr/bin/python3 gil_holder.py [-t WAITERS=19] [--lock-deadlock] [--cond-held]
                                   [--cond-deadlock] [--cond-busy] [--busy] [--no-wait]

Default mode (*hangs*): WAITERS threads run Python code, so they queue for
the GIL; then one holder thread calls libc read() through ctypes.PyDLL
(which does not release the GIL) on a socketpair end that never receives
data.  From then on the holder sleeps in read() holding the GIL and every
waiter sleeps in take_gil (5 ms timed condvar waits); so does the main
thread, woken in Thread.start() once the holder started, which needs the
GIL to return.  Between two timed waits a waiter is runnable: starved of
CPU, it stays so for long.  Prints:

    pid=PID
    thread role=waiter idx=I tid=T      (WAITERS lines, before the holder)
    thread role=holder idx=0 tid=T
    ready

Race: the holder prints `ready` itself, just before the read() call (no
other thread can run Python once it blocks), so `ready` can precede the
read() by a few microseconds; a test must wait until
/proc/PID/task/HOLDER/syscall shows syscall 0 (read).

--lock-deadlock (*hangs*): threads A and B take threading.Lock L1 / L2,
meet at a barrier, then take the other lock.  main verifies through
/proc/self/task/T/syscall that both sleep in futex() on the semaphore of
the lock they want, then prints:

    pid=PID
    lock name=L1 addr=0x... kind=semaphore
    lock name=L2 addr=0x... kind=semaphore
    thread role=A idx=0 tid=TA
    thread role=B idx=0 tid=TB
    blocked tid=TA on=L2 addr=0x... holds=L1 line=N
    blocked tid=TB on=L1 addr=0x... holds=L2 line=N
    deadlocked
    ready

--cond-held (*hangs*): WAITERS threads (3 unless -t) wait in cond.wait() on one
threading.Condition (its lock the default RLock); once all of them sleep, a
holder thread takes the Condition (`with cond:`) and blocks in recv() on a
socketpair end that never receives data, holding the Condition's lock, so no
notify() can come.  main verifies through /proc/self/task/T/syscall that the
waiters sleep in futex() and the holder in recvfrom(), waits 0.5 s more (a
holder asleep for a moment is not taken to keep the lock), then prints:

    pid=PID
    cond addr=0x... lock=0x...          (id() of the Condition and of its RLock)
    thread role=cwaiter idx=I tid=T     (WAITERS lines)
    thread role=condholder idx=0 tid=T
    ready

--cond-busy (*hangs*): as --cond-held, but the holder runs pure Python in a
loop inside `with cond:` instead of blocking: it holds the Condition's lock
while it runs, as a notifier does for a moment.  main verifies the waiters
sleep in futex() and /proc says the holder is running (R), then prints the
lines of --cond-held (role condholder).

--cond-deadlock (*hangs*): thread W takes threading.Lock L (`with L:`), then
waits in cond.wait(); then thread H takes the Condition (`with cond:`) and
then L, to notify: H waits for L, which W keeps, and W for a notify(), which
only H, holding the Condition's lock, could send.  main verifies that W sleeps
in futex() and H in futex() on L's semaphore, waits 0.5 s more, then prints:

    pid=PID
    cond addr=0x... lock=0x...
    lock name=L addr=0x... kind=semaphore
    thread role=W idx=0 tid=T
    thread role=H idx=0 tid=T
    deadlocked
    ready

--busy (*never hangs*): WAITERS threads run pure Python forever, so the
GIL changes hands every switch interval (5 ms): a process whose threads all
queue for the GIL and all make progress, which no stall rule may call a
stall.  Prints `pid=PID`, one `thread role=busy idx=I tid=T` per thread,
then `ready`; runs until killed.

`addr` is the sem_t behind the lock (CPython's lockobject keeps its
PyThread_type_lock right after PyObject_HEAD, at id(lock) + 16; on Linux it
is a malloc'd sem_t, whose first word is the futex).  `line` is the line
of the `second.acquire()` each thread is blocked at, as Python sees it.  No start gate in either
mode: both are already hung at `ready`; --no-wait is accepted for symmetry.
"""
import ctypes
import os
import socket
import sys
import threading
import time

SYS_FUTEX = 202
SYS_READ = 0


def out(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def syscall_of(tid):
    """(nr, arg0) from /proc/self/task/TID/syscall, or (None, None)."""
    try:
        with open("/proc/self/task/%d/syscall" % tid) as f:
            words = f.read().split()
    except OSError:
        return None, None
    if len(words) < 2 or words[0] in ("running", "-1"):
        return None, None
    return int(words[0]), int(words[1], 16)


def waiter(idx, started):
    out("thread role=waiter idx=%d tid=%d" % (idx, threading.get_native_id()))
    started.release()
    n = 0
    while True:  # pure Python: needs the GIL all the time
        n += 1


def holder(fd):
    libc = ctypes.PyDLL(None)  # PyDLL: the call keeps the GIL
    libc.read.argtypes = (ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t)
    buf = ctypes.create_string_buffer(64)
    out("thread role=holder idx=0 tid=%d" % threading.get_native_id())
    out("ready")
    libc.read(fd, buf, 64)  # never returns: nothing is ever written


def gil_mode(nwaiters):
    a, b = socket.socketpair()
    started = threading.Semaphore(0)
    for i in range(nwaiters):
        threading.Thread(target=waiter, args=(i, started), daemon=True).start()
    for _ in range(nwaiters):
        started.acquire()
    h = threading.Thread(target=holder, args=(a.fileno(),), daemon=True)
    h.start()
    h.join()
    b.close()


def busy_mode(nthreads):
    started = threading.Semaphore(0)
    for i in range(nthreads):
        threading.Thread(target=busy, args=(i, started), daemon=True).start()
    for _ in range(nthreads):
        started.acquire()
    out("ready")
    while True:
        time.sleep(3600)


def busy(idx, started):
    out("thread role=busy idx=%d tid=%d" % (idx, threading.get_native_id()))
    started.release()
    n = 0
    while True:  # pure Python: the GIL is passed on every switch interval
        n += 1


def sem_addr(lock):
    return ctypes.c_void_p.from_address(id(lock) + 16).value


def side(role, first, second, meet, tids):
    tids[role] = threading.get_native_id()
    first.acquire()
    meet.wait()
    tids[role + ".line"] = sys._getframe().f_lineno + 1
    second.acquire()  # never returns


def wait_blocked(tid, addr, timeout=10.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        nr, a0 = syscall_of(tid)
        if nr == SYS_FUTEX and addr <= a0 < addr + 8:
            return a0
        time.sleep(0.01)
    sys.stderr.write("tid %d never slept on 0x%x\n" % (tid, addr))
    sys.exit(1)


def deadlock_mode():
    l1, l2 = threading.Lock(), threading.Lock()
    a1, a2 = sem_addr(l1), sem_addr(l2)
    out("lock name=L1 addr=0x%x kind=semaphore" % a1)
    out("lock name=L2 addr=0x%x kind=semaphore" % a2)
    meet = threading.Barrier(2)
    tids = {}
    ta = threading.Thread(target=side, args=("A", l1, l2, meet, tids), daemon=True)
    tb = threading.Thread(target=side, args=("B", l2, l1, meet, tids), daemon=True)
    ta.start()
    tb.start()
    while len(tids) < 4:
        time.sleep(0.01)
    out("thread role=A idx=0 tid=%d" % tids["A"])
    out("thread role=B idx=0 tid=%d" % tids["B"])
    wa = wait_blocked(tids["A"], a2)
    wb = wait_blocked(tids["B"], a1)
    out("blocked tid=%d on=L2 addr=0x%x holds=L1 line=%d" % (tids["A"], wa, tids["A.line"]))
    out("blocked tid=%d on=L1 addr=0x%x holds=L2 line=%d" % (tids["B"], wb, tids["B.line"]))
    out("deadlocked")
    out("ready")
    while True:
        time.sleep(3600)


SYS_RECVFROM = 45


def wait_in(tid, nr, timeout=10.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if syscall_of(tid)[0] == nr:
            return
        time.sleep(0.01)
    sys.stderr.write("tid %d never slept in system call %d\n" % (tid, nr))
    sys.exit(1)


def cond_waiter(cond, tids, idx):
    tids[idx] = threading.get_native_id()
    with cond:
        cond.wait()  # never notified


def cond_holder(cond, sock, tids):
    tids["holder"] = threading.get_native_id()
    with cond:
        sock.recv(1)  # nobody writes: the Condition's lock is never released


def cdl_waiter(cond, lk, tids):
    tids["W"] = threading.get_native_id()
    with lk:
        with cond:
            cond.wait()  # only H could notify, and H waits for lk


def cdl_holder(cond, lk, tids):
    tids["H"] = threading.get_native_id()
    with cond:
        with lk:  # never taken: W keeps it
            cond.notify()


def cond_deadlock_mode():
    cond, lk = threading.Condition(), threading.Lock()
    out("cond addr=0x%x lock=0x%x" % (id(cond), id(cond._lock)))
    out("lock name=L addr=0x%x kind=semaphore" % sem_addr(lk))
    tids = {}
    threading.Thread(target=cdl_waiter, args=(cond, lk, tids), daemon=True).start()
    while "W" not in tids:
        time.sleep(0.01)
    wait_in(tids["W"], SYS_FUTEX)
    threading.Thread(target=cdl_holder, args=(cond, lk, tids), daemon=True).start()
    while "H" not in tids:
        time.sleep(0.01)
    wait_blocked(tids["H"], sem_addr(lk))
    time.sleep(0.5)  # asleep in it for a while: it keeps the Condition's lock
    out("thread role=W idx=0 tid=%d" % tids["W"])
    out("thread role=H idx=0 tid=%d" % tids["H"])
    out("deadlocked")
    out("ready")
    while True:
        time.sleep(3600)


def cond_spinner(cond, tids):
    tids["holder"] = threading.get_native_id()
    with cond:
        while True:  # holds the Condition's lock, never asleep
            pass


def state_of(tid):
    try:
        with open("/proc/self/task/%d/stat" % tid) as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return None


def cond_mode(nwaiters, busy=False):
    cond = threading.Condition()
    out("cond addr=0x%x lock=0x%x" % (id(cond), id(cond._lock)))
    tids = {}
    for i in range(nwaiters):
        threading.Thread(target=cond_waiter, args=(cond, tids, i), daemon=True).start()
    while len(tids) < nwaiters:
        time.sleep(0.01)
    for i in range(nwaiters):
        wait_in(tids[i], SYS_FUTEX)
    a, b = socket.socketpair()
    if busy:
        threading.Thread(target=cond_spinner, args=(cond, tids), daemon=True).start()
    else:
        threading.Thread(target=cond_holder, args=(cond, a, tids), daemon=True).start()
    while "holder" not in tids:
        time.sleep(0.01)
    if busy:
        end = time.monotonic() + 10
        while state_of(tids["holder"]) != "R":
            if time.monotonic() > end:
                sys.stderr.write("the spinner never ran\n")
                sys.exit(1)
            time.sleep(0.01)
    else:
        wait_in(tids["holder"], SYS_RECVFROM)
        time.sleep(0.5)  # asleep in it for a while: it keeps the lock
    for i in range(nwaiters):
        out("thread role=cwaiter idx=%d tid=%d" % (i, tids[i]))
    out("thread role=condholder idx=0 tid=%d" % tids["holder"])
    out("ready")
    while True:
        time.sleep(3600)


def main(argv):
    nwaiters, deadlock, busy_only, cond_held, cond_deadlock, cond_busy = None, False, False, False, False, False
    i = 0
    while i < len(argv):
        if argv[i] == "-t" and i + 1 < len(argv) and argv[i + 1].isdigit():
            nwaiters = int(argv[i + 1])
            i += 1
        elif argv[i] == "--lock-deadlock":
            deadlock = True
        elif argv[i] == "--cond-held":
            cond_held = True
        elif argv[i] == "--cond-deadlock":
            cond_deadlock = True
        elif argv[i] == "--cond-busy":
            cond_busy = True
        elif argv[i] == "--busy":
            busy_only = True
        elif argv[i] != "--no-wait":
            sys.stderr.write("usage: gil_holder.py [-t WAITERS] [--lock-deadlock] [--cond-held] "
                             "[--cond-deadlock] [--cond-busy] [--busy] [--no-wait]\n")
            sys.exit(2)
        i += 1
    out("pid=%d" % os.getpid())
    if deadlock:
        deadlock_mode()
    elif cond_deadlock:
        cond_deadlock_mode()
    elif cond_held or cond_busy:
        cond_mode(3 if nwaiters is None else nwaiters, busy=cond_busy)
    elif busy_only:
        busy_mode(19 if nwaiters is None else nwaiters)
    else:
        gil_mode(19 if nwaiters is None else nwaiters)


if __name__ == "__main__":
    main(sys.argv[1:])
