"""A multiprocessing.Lock taken by a sibling process that then exited
holding it (a POSIX semaphore records no owner: the lock is lost); a child
waits for it before it would put on a Queue, and the parent waits in
Queue.get() (tests/live/test_pylock_live.c).  The parent never touched the
lock, though it runs the same <module> code as its forked children: no
holder may be inferred from that.  Prints the pids, then "ready"."""
import multiprocessing as mp
import os
import sys


def child(lock, q):
    with lock:
        q.put("hi")


if __name__ == "__main__":
    mp.set_start_method("fork")
    lock = mp.Lock()
    q = mp.Queue()
    s = mp.Process(target=lock.acquire)
    s.start()
    s.join()
    p = mp.Process(target=child, args=(lock, q))
    p.start()
    print("parent pid=%d" % os.getpid())
    print("waiter pid=%d" % p.pid)
    print("sibling pid=%d" % s.pid)
    print("ready")
    sys.stdout.flush()
    print(q.get())
