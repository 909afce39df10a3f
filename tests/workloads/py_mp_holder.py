"""py_mp_holder - a multiprocessing.Lock held by a live thread of another
process, waited for by threads of two processes.

    python3 py_mp_holder.py [held|gone|queue]

held (the default): main creates multiprocessing.Lock L (a POSIX semaphore
in shared memory) and a pipe nobody writes (main alone keeps its write
end), forks process "holder", whose
thread "lockholder" does `with L:` then blocks reading that pipe (its main
thread joins it), and process "waiters", whose threads "waiter-1" and
"waiter-2" block in `with L:`; main's own thread "waiter-0" blocks in
L.acquire().  Each process's SemLock over L keeps the count and last_tid
that name the holder.
gone: the same, but thread "lockholder" returns holding L (it acquired it
and never released it) and the holder process's main thread then sleeps:
L is held by no live thread.
queue: a multiprocessing.SimpleQueue (as multiprocessing.Pool's workers
read their tasks): 3 processes "consumer-I" each call get() on it, nobody
puts: one holds the queue's read lock (self._rlock in SimpleQueue.get)
reading the pipe, the 2 others wait for that lock.

Prints (held, gone):

    pid=PID
    lock name=L addr=0x...            (the sem_t in main's mapping)
    holder pid=H tid=T                (the thread that took L)
    waiter pid=P tid=T idx=I          (3 lines: idx 0 in main, 1 and 2 in W)
    ready                             (every waiter asleep in futex(); in
                                       held, the holder in read(); in gone,
                                       thread T has exited)

queue:

    pid=PID
    consumer pid=C idx=I              (3 lines: each process's main thread)
    ready                             (they are in read() or futex())

Then main sleeps for ever; its children are daemons (the test kills them).
"""
import multiprocessing
import os
import sys
import threading
import time

sys.stdout.reconfigure(line_buffering=True) if hasattr(sys.stdout, "reconfigure") else None


def in_call(pid, tid, nr):
    for _ in range(20000):
        try:
            with open("/proc/%d/task/%d/syscall" % (pid, tid)) as f:
                if f.read().split()[0] == str(nr):
                    return True
        except OSError:
            pass
        time.sleep(0.001)
    return False


def gone(pid, tid):
    for _ in range(20000):
        if not os.path.exists("/proc/%d/task/%d" % (pid, tid)):
            return True
        time.sleep(0.001)
    return False


def report(w, *vals):
    os.write(w, (" ".join(str(v) for v in vals) + "\n").encode())


def take_and_read(lock, r, w):
    with lock:
        report(w, os.getpid(), threading.get_native_id())
        os.read(r, 1)  # nobody writes: blocks holding L


def take_and_leave(lock, w):
    lock.acquire()  # never released: the thread returns holding L
    report(w, os.getpid(), threading.get_native_id())


def holder_main(lock, r, w, mode, never_w):
    os.close(never_w)  # main alone keeps the write end
    if mode == "gone":
        t = threading.Thread(target=take_and_leave, args=(lock, w), name="lockholder")
        t.start()
        t.join()
        while True:
            time.sleep(3600)
    t = threading.Thread(target=take_and_read, args=(lock, r, w), name="lockholder")
    t.start()
    t.join()


def wait_in_with(lock, w):
    report(w, os.getpid(), threading.get_native_id())
    with lock:
        pass


def waiters_main(lock, w, never_w):
    os.close(never_w)
    ts = [threading.Thread(target=wait_in_with, args=(lock, w), name="waiter-%d" % i) for i in (1, 2)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()


def wait_acquire(lock, w):
    report(w, os.getpid(), threading.get_native_id())
    lock.acquire()


def consumer(q, w):
    report(w, os.getpid())
    q.get()


def read_line(f):
    line = f.readline()
    if not line:
        sys.exit("py_mp_holder: a child exited before reporting")
    return [int(x) for x in line.split()]


def queue_mode(ctx):
    q = ctx.SimpleQueue()
    r, w = os.pipe()
    rf = os.fdopen(r, "r")
    print("pid=%d" % os.getpid())
    procs = []
    for i in range(3):
        p = ctx.Process(target=consumer, args=(q, w), name="consumer-%d" % i, daemon=True)
        p.start()
        procs.append(p)
    for i in range(3):
        (pid,) = read_line(rf)
        print("consumer pid=%d idx=%d" % (pid, i))
        deadline = time.time() + 20
        while time.time() < deadline:
            try:
                with open("/proc/%d/syscall" % pid) as f:
                    if f.read().split()[0] in ("0", "202"):
                        break
            except OSError:
                pass
            time.sleep(0.001)
    print("ready")
    while True:
        time.sleep(3600)


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else "held"
    ctx = multiprocessing.get_context("fork")
    if mode == "queue":
        return queue_mode(ctx)
    lock = ctx.Lock()
    never_r, never_w = os.pipe()  # nobody writes it
    rep_r, rep_w = os.pipe()
    rep = os.fdopen(rep_r, "r")
    print("pid=%d" % os.getpid())
    print("lock name=L addr=0x%x" % lock._semlock.handle)
    holder = ctx.Process(target=holder_main, args=(lock, never_r, rep_w, mode, never_w), name="holder", daemon=True)
    holder.start()
    hpid, htid = read_line(rep)
    if mode == "gone":
        if not gone(hpid, htid):
            sys.exit("py_mp_holder: thread %d never exited" % htid)
    elif not in_call(hpid, htid, 0):
        sys.exit("py_mp_holder: the holder %d never blocked in read()" % htid)
    print("holder pid=%d tid=%d" % (hpid, htid))
    waiters = ctx.Process(target=waiters_main, args=(lock, rep_w, never_w), name="waiters", daemon=True)
    waiters.start()
    found = []
    for _ in range(2):
        found.append(read_line(rep))
    t = threading.Thread(target=wait_acquire, args=(lock, rep_w), name="waiter-0", daemon=True)
    t.start()
    found.insert(0, read_line(rep))
    for i, (pid, tid) in enumerate(found):
        if not in_call(pid, tid, 202):
            sys.exit("py_mp_holder: waiter %d never slept in futex()" % tid)
        print("waiter pid=%d tid=%d idx=%d" % (pid, tid, i))
    print("ready")
    while True:
        time.sleep(3600)


if __name__ == "__main__":
    main()
