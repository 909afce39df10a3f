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
import os
import sys
import threading
import time

ROUNDS = 200
HOLD_MS = 4
GATE = False
LINGER = False
args = sys.argv[1:]
while args:
    a = args.pop(0)
    if a == "-r":
        ROUNDS = int(args.pop(0))
    elif a == "--gate":
        GATE = True
    elif a == "--linger":
        LINGER = True
    elif a == "--hold-ms":
        HOLD_MS = int(args.pop(0))
    else:
        sys.exit("py_lock_sites.py: unknown argument %r" % a)

lk = threading.Lock()
gate = threading.Event()
tids = {}
ready = threading.Barrier(3)
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


def line_of(func, marker):
    import inspect
    src, first = inspect.getsourcelines(func)
    for i, text in enumerate(src):
        if marker in text:
            return first + i
    raise SystemExit("no line with %r in %s" % (marker, func.__name__))


def run(role, fn, *a):
    tids[role] = threading.get_native_id()
    ready.wait()
    gate.wait()
    fn(*a)


th = threading.Thread(target=run, args=("holder", holder, ROUNDS, HOLD_MS / 1000.0), name="holder")
tw = threading.Thread(target=run, args=("waiter", waiter), name="waiter")
th.start()
tw.start()
ready.wait()
print("pid=%d" % os.getpid())
print("site name=release line=%d" % line_of(holder, "# LR"))
print("site name=acquire line=%d" % line_of(waiter, "# LW"))
print("thread role=holder tid=%d" % tids["holder"])
print("thread role=waiter tid=%d" % tids["waiter"])
if GATE:
    print("ready")
    sys.stdout.flush()
    sys.stdin.readline()
else:
    sys.stdout.flush()
    time.sleep(0.5)
gate.set()
th.join()
tw.join()
print("done rounds=%d" % ROUNDS)
sys.stdout.flush()
while LINGER:
    time.sleep(3600)
