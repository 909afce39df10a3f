"""py_gil_sites - two Python functions that wait for the GIL at known lines.

    /usr/bin/python3 py_gil_sites.py [-r ROUNDS=60] [--hold-ms MS=3] [--gate] [--linger] [--no-wait]

Thread `alpha` runs alpha(), on one line (LA): it holds the GIL the way a
C extension working without releasing it does, in libc's usleep(8 ms)
called through ctypes.PyDLL (which keeps the GIL), again and again, and
lets go of it only when another thread asks (at the loop's next eval-loop
check).  Thread `beta` runs beta(), on one line (LB), ROUNDS times:
time.sleep(0), which lets go of the GIL and takes it back (waiting there
for alpha to let go: a switch interval, set to 20 ms, after which beta
asks, then until alpha's usleep() under way ends), then holds the GIL
MS ms in usleep() through ctypes.PyDLL, so alpha waits for the GIL that
long.  Neither burns CPU: on a loaded machine with 2 cores a CPU-bound
thread would starve the recorder watching it.
Beta's wait for the GIL is two waits: a timed wait of a switch interval,
which times out (woken by a timer), then the wait until alpha lets go,
ended by alpha's wake-up.  alpha takes the GIL as beta's round begins and
checks for the request every 8 ms (and a little: each call's own time),
so the second wait lasts about 24 - 20 = 4 ms: well above the 1 ms from
which a recorder promises the stack of a wait ended by a thread of its
process.  (A period of 2 ms, as before, put the request at a multiple of
the period, and these waits at about 1 ms: each call's own time, times
ten, less beta's delay; a run on a quieter or busier machine could have
none of 1 ms or more.)  Beta begins its rounds only once alpha runs
alpha() (alpha_in): a thread that starts late (a loaded machine has left
one runnable for 250 ms) would otherwise find beta's rounds over, with
no wait for the GIL in them.
Every GIL wait of either thread is in its function at its line; the
function and the loop each fit on one line so that the eval loop stops on
no other line.  Prints, before the threads start (they wait on a
threading.Event, set 0.5 s later, or with --gate once a line is read
from stdin, after `ready`):

    pid=PID
    site name=alpha line=LA
    site name=beta line=LB
    thread role=alpha tid=T
    thread role=beta tid=T
    ready                     (--gate)

and at the end, beta's own measure of its GIL waits (the time in its
time.sleep(0) calls: each returns once beta has the GIL back) and of its
holds:

    done rounds=N beta_wait_us=U beta_hold_us=H

With --linger the process then stays (asleep) until it is killed: a
recorder resolves the Python frames of the stacks it copied from the
process's memory, which must still be there.
"""
import ctypes
import sys
import threading
import time

from py_sites import finish, gate, line_of, options, ready, start, tids

# --no-wait: the protocol's; without --gate nothing waits
ROUNDS, HOLD_MS, GATE, LINGER = options("py_gil_sites.py", 60, 3, ignored=("--no-wait",))

libc = ctypes.PyDLL(None)  # PyDLL: calls keep the GIL
DONE = False
result = {}


alpha_in = threading.Event()  # alpha runs alpha(): beta's rounds may begin


def alpha(usleep=libc.usleep):
    while not DONE: usleep(8000)  # noqa: E701  (LA: the whole loop on one line)


def beta(rounds, hold_us, pc=time.perf_counter, sleep=time.sleep, usleep=libc.usleep):
    w = h = 0.0
    for _ in range(rounds): t0 = pc(); sleep(0); t1 = pc(); usleep(hold_us); w += t1 - t0; h += pc() - t1  # noqa: E501,E702 (LB)
    return w, h


def run_alpha():
    tids["alpha"] = threading.get_native_id()
    ready.wait()
    gate.wait()
    alpha_in.set()
    alpha()


def run_beta():
    global DONE
    tids["beta"] = threading.get_native_id()
    ready.wait()
    gate.wait()
    alpha_in.wait()
    result["wh"] = beta(ROUNDS, HOLD_MS * 1000)
    DONE = True


sys.setswitchinterval(0.02)
ta = threading.Thread(target=run_alpha, name="alpha")
tb = threading.Thread(target=run_beta, name="beta")
start([ta, tb], [("alpha", line_of(alpha, "while not DONE")),
                 ("beta", line_of(beta, "for _ in range(rounds)"))], GATE)
tb.join()
ta.join()
w, h = result["wh"]
finish("done rounds=%d beta_wait_us=%d beta_hold_us=%d" % (ROUNDS, w * 1e6, h * 1e6), LINGER)
