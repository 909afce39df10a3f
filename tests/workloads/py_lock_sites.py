"""py_lock_sites - a threading.Lock released at a known line while another
thread waits for it, the ground truth for the releasing stacks of
`record --calls blocking --stacks` in Python terms.

    /usr/bin/python3 py_lock_sites.py [-r ROUNDS=200] [--hold-ms MS=4] [--gate] [--linger]

Thread `holder` runs holder(), ROUNDS times: takes the lock, keeps it MS ms
(time.sleep: the GIL is let go meanwhile), releases it on its own line (LR),
then sleeps MS ms more so that the waiter gets the lock.  Thread `waiter`
runs waiter(): waits for the lock on its own line (LW), lets go of it at
once, ROUNDS times.  So the holder's release at LR is what ends the
waiter's waits (the wake-up of the lock's semaphore futex).  Prints, before
the threads start (they wait on a threading.Event, set 0.5 s later, or
with --gate once a line is read from stdin, after `ready`):

    pid=PID
    site name=release line=LR
    site name=acquire line=LW
    thread role=holder tid=T
    thread role=waiter tid=T
    ready                     (--gate)

and at the end `done rounds=N`.  With --linger the process then stays
(asleep) until it is killed: a recorder resolves the Python frames of the
stacks it copied from the process's memory, which must still be there.
"""
import threading
import time

from py_sites import finish, gate, line_of, options, ready, start, tids

ROUNDS, HOLD_MS, GATE, LINGER = options("py_lock_sites.py", 200, 4)

lk = threading.Lock()
stop = threading.Event()


def holder(rounds, hold):
    for _ in range(rounds):
        lk.acquire()
        time.sleep(hold)
        lk.release()  # LR
        time.sleep(hold)
    stop.set()


def waiter():
    while not stop.is_set():
        if lk.acquire(timeout=0.5):  # LW
            lk.release()


def run(role, fn, *a):
    tids[role] = threading.get_native_id()
    ready.wait()
    gate.wait()
    fn(*a)


th = threading.Thread(target=run, args=("holder", holder, ROUNDS, HOLD_MS / 1000.0), name="holder")
tw = threading.Thread(target=run, args=("waiter", waiter), name="waiter")
start([th, tw], [("release", line_of(holder, "# LR")), ("acquire", line_of(waiter, "# LW"))], GATE)
th.join()
tw.join()
finish("done rounds=%d" % ROUNDS, LINGER)
