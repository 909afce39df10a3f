"""wl_flock - shared by the Python workloads (imported from the script's
folder, which Python puts first on sys.path): a forked child that holds
fcntl.flock(PATH, LOCK_EX) and pause()s until the test kills it."""
import fcntl
import os
import signal
import sys


def flock_holder(path):
    """Fork the holder; return once it holds the lock, having printed
    "holder pid=C"."""
    r, w = os.pipe()
    child = os.fork()
    if child == 0:
        os.close(r)
        f = open(path, "a")
        fcntl.flock(f, fcntl.LOCK_EX)
        os.write(w, b"h")
        while True:
            signal.pause()
    os.close(w)
    if os.read(r, 1) != b"h":
        sys.exit("the holder did not take the lock")
    os.close(r)
    print(f"holder pid={child}", flush=True)
    return child
