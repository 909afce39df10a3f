"""py_stacks - Python threads blocked at known lines (*hangs*), the ground
truth for the CPython thread model (names, Python frames, lines, locks).

    /usr/bin/python3 py_stacks.py [--depth N=40]

Each thread prints, just before it blocks, where its innermost Python frame
is (for `event`: the frame under threading's Event.wait and Condition.wait),
as Python itself sees it (the frame's own f_lineno, the code object's
co_filename and co_qualname, or co_name before 3.11):

    pid=PID
    thread role=R tid=T func=F line=L file=PATH name=NAME

role    name          blocks in                                 func
sleeper sleeper       time.sleep()                              sleep_forever
reader  reader-ü      socket.recv() (Latin-1 name)              Reader.run_forever (method)
locker  作業者         threading.Lock().acquire(): main holds it lock_wait (the lock is local `lk`)
rlocker rlocker       threading.RLock().acquire(): main holds it lock_wait (local `lk`)
gen     gen           time.sleep() inside a generator           blocking_gen
event   event         threading.Event().wait(): never set       wait_event (its innermost
                                                                frame is threading's
                                                                Condition.wait)
deep    deep          time.sleep() under N recursive calls      recurse (depth=N)
main    MainThread    time.sleep()                              main (printed last)

Then main checks through /proc/self/task/T/syscall that every thread
sleeps in a system call and prints `ready`.  `lock name=held kind=Lock
addr=0x...` and `lock name=rheld kind=RLock addr=0x...` give the lock
objects (id()).  NAME is UTF-8 and always the last key.
"""
import os
import socket
import sys
import threading
import time


def out(line):
    sys.stdout.buffer.write((line + "\n").encode("utf-8"))
    sys.stdout.flush()


def report(role, frame, offset):
    """The line `offset` lines below `frame`'s current one, as Python sees it."""
    code = frame.f_code
    func = getattr(code, "co_qualname", code.co_name)
    out("thread role=%s tid=%d func=%s line=%d file=%s name=%s" % (
        role, threading.get_native_id(), func, frame.f_lineno + offset, code.co_filename,
        threading.current_thread().name))


def sleep_forever():
    report("sleeper", sys._getframe(), 1)
    time.sleep(3600)


class Reader:
    def __init__(self, sock):
        self.sock = sock

    def run_forever(self):
        report("reader", sys._getframe(), 1)
        self.sock.recv(1)


def lock_wait(role, lk):
    report(role, sys._getframe(), 1)
    lk.acquire()


def wait_event(ev):
    report("event", sys._getframe(), 1)
    ev.wait()


def blocking_gen():
    report("gen", sys._getframe(), 1)
    time.sleep(3600)
    yield 1


def gen_main():
    for _ in blocking_gen():
        pass


def recurse(n):
    if n == 0:
        report("deep", sys._getframe(), 1)
        time.sleep(3600)
    recurse(n - 1)


def asleep(tid):
    try:
        with open("/proc/self/task/%d/syscall" % tid) as f:
            words = f.read().split()
    except OSError:
        return False
    return bool(words) and words[0] not in ("running", "-1")


def main(argv):
    depth = 40
    if len(argv) == 2 and argv[0] == "--depth" and argv[1].isdigit():
        depth = int(argv[1])
    elif argv:
        sys.stderr.write("usage: py_stacks.py [--depth N]\n")
        sys.exit(2)
    out("pid=%d" % os.getpid())
    held, rheld = threading.Lock(), threading.RLock()
    held.acquire()
    rheld.acquire()
    out("lock name=held kind=Lock addr=0x%x" % id(held))
    out("lock name=rheld kind=RLock addr=0x%x" % id(rheld))
    a, b = socket.socketpair()
    threads = [
        threading.Thread(target=sleep_forever, name="sleeper", daemon=True),
        threading.Thread(target=Reader(a).run_forever, name="reader-\u00fc", daemon=True),
        threading.Thread(target=lock_wait, args=("locker", held), name="\u4f5c\u696d\u8005",
                         daemon=True),
        threading.Thread(target=lock_wait, args=("rlocker", rheld), name="rlocker", daemon=True),
        threading.Thread(target=gen_main, name="gen", daemon=True),
        threading.Thread(target=wait_event, args=(threading.Event(),), name="event", daemon=True),
        threading.Thread(target=recurse, args=(depth,), name="deep", daemon=True),
    ]
    for t in threads:
        t.start()
    end = time.monotonic() + 20
    while time.monotonic() < end:
        if all(t.native_id and asleep(t.native_id) for t in threads):
            break
        time.sleep(0.01)
    else:
        sys.stderr.write("threads never went to sleep\n")
        sys.exit(1)
    report("main", sys._getframe(), 2)
    out("ready")
    time.sleep(3600)
    b.close()


if __name__ == "__main__":
    main(sys.argv[1:])
