"""Idle consumers of a queue.SimpleQueue (tests/live/test_pylock_live.c):
two threads wait in get() on an empty queue, as ThreadPoolExecutor's
workers and multiprocessing.Pool's task handler do; nothing will put.
CPython up to 3.12 parks them on a PyThread lock of the queue's own (a
semaphore, from the C _queue module), which nobody holds: an awaited item,
not a lock.  Prints each consumer's native thread id, then "ready", then
sleeps."""
import queue
import sys
import threading
import time

q = queue.SimpleQueue()
started = []
for i in range(2):
    t = threading.Thread(target=q.get, name="consumer%d" % i, daemon=True)
    t.start()
    started.append(t)
for i, t in enumerate(started):
    print("thread role=consumer idx=%d tid=%d" % (i, t.native_id))
print("ready")
sys.stdout.flush()
time.sleep(600)
