/* JucLocks - Java threads deadlocked on java.util.concurrent locks, with
 * their ground truth.
 *
 *   java -cp build/workloads/java JucLocks MODE [--no-wait]
 *
 * rl-deadlock (hangs): thread "rl-A" locks ReentrantLock RL_A, thread
 *   "rl-B" locks RL_B; they meet at a barrier, then each locks the other's.
 *   Four threads "busy-I" spin for ever beside them.
 * mixed (hangs): thread "mon-holder" enters the monitor of MON (class
 *   JucLocks$Mon) then locks RL_A; thread "rl-holder" locks RL_A then
 *   enters MON's monitor: a cycle through a monitor and a ReentrantLock.
 * rw-deadlock (hangs): thread "rw-A" takes the write lock of
 *   ReentrantReadWriteLock RW_A, thread "rw-B" that of RW_B; they meet at a
 *   barrier, then each takes the other's write lock.  Two threads
 *   "busy-I" spin for ever beside them.
 * notify-held (hangs): threads "mon-waiter-I" (I = 0..2) wait in MON.wait(),
 *   threads "cv-waiter-I" in COND.await() (COND: a Condition of RL_A); then
 *   "mon-owner" enters MON's monitor and "rl-owner" locks RL_A, and each
 *   blocks in read() on a pipe nobody writes: no notify() or signal() can
 *   come but from them.  Roles MW0..MW2, CW0..CW2, MO, RO; the owners'
 *   "inread" lines once /proc says read (0); "ready" 0.5 s after (an owner
 *   asleep for a moment is not taken to keep its monitor or lock).
 * wait-deadlock (hangs): "wd-W" enters MON's monitor, then waits in
 *   MON2.wait(); "wd-H" enters MON2's monitor, then MON's: H waits to enter
 *   a monitor W owns, W for a notify() that only H, owning MON2, can send.
 *   Roles W, H; "ready" 0.5 s after both block.
 * shared-waits (hangs): "latch-awaiter" waits in await() on a
 *   CountDownLatch of 2 counted down once (count 1); "reader-0" to
 *   "reader-2" take RW_A's read lock and sleep (the lock records the first
 *   in Sync.firstReader, the others only in their ThreadLocal readHolds);
 *   "rw-writer" then waits for its write lock.  Roles LA, WR, R0..R2.
 * read-cycle (hangs): thread "rc-reader" takes RW_A's read lock, thread
 *   "rc-writer" locks RL_B; they meet at a barrier, then the reader locks
 *   RL_B and the writer takes RW_A's write lock: a cycle through a read
 *   hold, which only the lock's Sync.firstReader records.  Beside it
 *   "sem-holder" locks RL_A, then waits for a permit of SEM (none), and
 *   "sem-victim" waits to lock RL_A.  Roles R, W, H, V.
 * rl-exited (hangs): "rl-leaver" locks RL_B and exits without unlocking it;
 *   then "rl-victim" waits to lock RL_B, which no live thread holds.  Roles
 *   L (gone by "ready"), V.
 * future-pipe (hangs): a single-thread executor whose thread is "fut-runner"
 *   runs a task that blocks in read() on a pipe nobody writes; thread
 *   "fut-getter" waits for it in Future.get() (its parkBlocker the
 *   FutureTask, whose runner is fut-runner).  Roles G, R; R's "inread" line.
 * future-starve (hangs): a single-thread executor whose thread is
 *   "starve-pool" runs task A, which submits task B to the same executor and
 *   waits in B.get(): B is queued behind A, and the executor's one thread is
 *   the one waiting (a thread-starvation deadlock).  Role P.
 * future-cycle (hangs): thread "fc-getter" locks RL_A, submits a task that
 *   locks RL_A to a single-thread executor whose thread is "fc-runner", and
 *   waits in its get(): a cycle through a get().  Roles G, R.
 * join-pipe (hangs): thread "jp-joiner" waits in join() of thread
 *   "jp-worker", which blocks in read() on a pipe nobody writes.  Roles J, W;
 *   W's "inread" line.
 * join-lock (hangs): thread "jl-A" locks RL_A, starts thread "jl-B", which
 *   waits to lock RL_A, and waits for it in jl-B.join(): A waits for B to
 *   exit, B for a lock A holds.  Roles A, B.
 * join-free (hangs): waits for threads that are not stuck, beside one that
 *   is.  A single-thread executor's thread "jf-busy" runs a task that spins
 *   (role BR); "jf-getter" waits in get() of that task (G) and "jf-bjoiner"
 *   in jf-busy.join() (BJ).  "jf-sleeper" loops in Thread.sleep() (S),
 *   joined by "jf-sjoiner" (SJ); "jf-idle" waits in take() of an empty
 *   LinkedBlockingQueue (I), joined by "jf-ijoiner" (IJ).  "jf-holder" locks
 *   RL_B and loops in Thread.sleep() (H); "jf-locked" waits to lock RL_B
 *   (L), joined by "jf-ljoiner" (LJ).  "ready" 0.5 s after every waiter
 *   blocks and S, I and H sleep in futex().
 *
 * barrier-late, phaser-late (hangs): "cb-party-0" and "cb-party-1" wait in
 *   await() of a CyclicBarrier of 3 (phaser-late: "ph-party-I" in
 *   arriveAndAwaitAdvance() of a Phaser of 3, phase 0); "cb-late"
 *   ("ph-late") blocks in read() on a pipe nobody writes before it would
 *   arrive, and the main thread joins it after "ready" (no thread on a
 *   timer); an executor's two workers wait for tasks beside them.  Roles
 *   P0, P1, L; L's "inread" line.
 *
 * cfuture-late, fjtask-late (hang): "fu-getter" waits in get() of a
 *   CompletableFuture that "cf-late" completes (fjtask-late: of a
 *   ForkJoinTask a ForkJoinPool's worker runs) after a read() on a pipe
 *   nobody writes; the main thread joins the getter after "ready".  Roles
 *   G, L; L's "inread" line.
 * handoff-late KIND (hangs): "ho-waiter" waits, in handoffWait, for a hand-off
 *   that "ho-late" makes after a read() on a pipe nobody writes: KIND take
 *   (LinkedBlockingQueue.take() of an empty queue), put (ArrayBlockingQueue
 *   .put() into a full one), sq (SynchronousQueue.take()), exchange
 *   (Exchanger.exchange()), wait (Object.wait() on a Mon, its monitor
 *   free), park (LockSupport.park() with no blocker), latch
 *   (CountDownLatch.await(), count 1), semaphore (Semaphore.acquire(), no
 *   permits); the main thread
 *   joins the waiter after "ready".  Roles W, L; L's "inread" line.
 *
 * Prints (one fact per line):
 *   pid=PID
 *   thread role=R idx=0 tid=T name=NAME     (the tid read from /proc/thread-self)
 *   blocked tid=T on=L holds=M              (Java says WAITING/BLOCKED and
 *                                            /proc/self/task/T/syscall says futex)
 *   inread tid=T                            (notify-held: an owner in read())
 *   deadlocked                              (not in notify-held)
 *   ready
 * No start gate: every mode is hung at `ready`.
 */
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

public class JucLocks {
	static final class Mon { }

	static final ReentrantLock RL_A = new ReentrantLock();
	static final ReentrantLock RL_B = new ReentrantLock();
	static final Object MON = new Mon();
	static final Object MON2 = new Mon();
	static final java.util.concurrent.locks.Condition COND = RL_A.newCondition();
	static final ReentrantReadWriteLock RW_A = new ReentrantReadWriteLock();
	static final ReentrantReadWriteLock RW_B = new ReentrantReadWriteLock();
	static volatile long sink;

	static synchronized void out(String line) {
		System.out.println(line);
		System.out.flush();
	}

	static int myTid() {
		try {
			String p = Files.readSymbolicLink(Path.of("/proc/thread-self")).toString();
			return Integer.parseInt(p.substring(p.lastIndexOf('/') + 1));
		} catch (Exception e) {
			return -1;
		}
	}

	static int syscallNr(int tid) {
		try {
			String s = Files.readString(Path.of("/proc/self/task/" + tid + "/syscall")).trim();
			return Integer.parseInt(s.split(" ")[0]);
		} catch (Exception e) {
			return -2;
		}
	}

	static final class Worker {
		final Thread thread;
		volatile int tid;

		Worker(String name, Runnable body) {
			thread = new Thread(() -> {
				tid = myTid();
				body.run();
			}, name);
			thread.setDaemon(true);
			thread.start();
		}

		Worker(Thread t, int tid) { /* a thread started elsewhere (an executor's) */
			thread = t;
			this.tid = tid;
		}

		void announce(String role) {
			while (tid == 0)
				Thread.onSpinWait();
			out("thread role=" + role + " idx=0 tid=" + tid + " name=" + thread.getName());
		}
	}

	static void await(CyclicBarrier b) {
		try {
			b.await();
		} catch (Exception e) {
			throw new RuntimeException(e);
		}
	}

	/* Until Java says the thread waits (parked, timed or not, or blocked) and
	 * the kernel says futex (202). */
	static void awaitBlocked(Worker w, String on, String holds) throws InterruptedException {
		for (int i = 0; i < 3000; i++) {
			Thread.State st = w.thread.getState();
			if ((st == Thread.State.WAITING || st == Thread.State.TIMED_WAITING || st == Thread.State.BLOCKED) &&
			    syscallNr(w.tid) == 202) {
				out("blocked tid=" + w.tid + " on=" + on + " holds=" + holds);
				return;
			}
			Thread.sleep(10);
		}
		System.err.println("JucLocks: thread " + w.tid + " never blocked on " + on);
		System.exit(1);
	}

	static void crosswise(Lock first, Lock second, CyclicBarrier meet) {
		first.lock();
		try {
			await(meet);
			second.lock();
			sink++;
		} finally {
			first.unlock();
		}
	}

	static void rlDeadlock() throws Exception {
		CyclicBarrier meet = new CyclicBarrier(2);
		for (int i = 0; i < 4; i++)
			new Worker("busy-" + i, () -> {
				for (;;)
					sink++;
			});
		Worker a = new Worker("rl-A", () -> crosswise(RL_A, RL_B, meet));
		Worker b = new Worker("rl-B", () -> crosswise(RL_B, RL_A, meet));
		a.announce("A");
		b.announce("B");
		awaitBlocked(a, "RL_B", "RL_A");
		awaitBlocked(b, "RL_A", "RL_B");
	}

	static void sharedWaits() throws Exception {
		java.util.concurrent.CountDownLatch latch = new java.util.concurrent.CountDownLatch(2);
		latch.countDown();
		Worker la = new Worker("latch-awaiter", () -> {
			try {
				latch.await();
			} catch (InterruptedException e) {
			}
		});
		la.announce("LA");
		for (int i = 0; i < 3; i++)
			new Worker("reader-" + i, () -> {
				RW_A.readLock().lock();
				try {
					Thread.sleep(1000000000L);
				} catch (InterruptedException e) {
				}
			}).announce("R" + i);
		while (RW_A.getReadLockCount() < 3)
			Thread.sleep(10);
		Worker wr = new Worker("rw-writer", () -> RW_A.writeLock().lock());
		wr.announce("WR");
		awaitBlocked(la, "latch", "-");
		awaitBlocked(wr, "RW_A", "-");
	}

	static final java.util.concurrent.Semaphore SEM = new java.util.concurrent.Semaphore(0);

	static void readCycle() throws Exception {
		CyclicBarrier meet = new CyclicBarrier(2);
		Worker r = new Worker("rc-reader", () -> crosswise(RW_A.readLock(), RL_B, meet));
		Worker w = new Worker("rc-writer", () -> crosswise(RL_B, RW_A.writeLock(), meet));
		r.announce("R");
		w.announce("W");
		awaitBlocked(r, "RL_B", "RW_A-read");
		awaitBlocked(w, "RW_A", "RL_B");
		Worker h = new Worker("sem-holder", () -> {
			RL_A.lock();
			SEM.acquireUninterruptibly();
		});
		h.announce("H");
		awaitBlocked(h, "SEM", "RL_A");
		Worker v = new Worker("sem-victim", () -> RL_A.lock());
		v.announce("V");
		awaitBlocked(v, "RL_A", "-");
	}

	static void rlExited() throws Exception {
		Worker l = new Worker("rl-leaver", () -> RL_B.lock());
		l.announce("L");
		l.thread.join();
		Worker v = new Worker("rl-victim", () -> RL_B.lock());
		v.announce("V");
		awaitBlocked(v, "RL_B", "-");
	}

	static void rwDeadlock() throws Exception {
		CyclicBarrier meet = new CyclicBarrier(2);
		for (int i = 0; i < 2; i++)
			new Worker("busy-" + i, () -> {
				for (;;)
					sink++;
			});
		Worker a = new Worker("rw-A", () -> crosswise(RW_A.writeLock(), RW_B.writeLock(), meet));
		Worker b = new Worker("rw-B", () -> crosswise(RW_B.writeLock(), RW_A.writeLock(), meet));
		a.announce("A");
		b.announce("B");
		awaitBlocked(a, "RW_B", "RW_A");
		awaitBlocked(b, "RW_A", "RW_B");
	}

	static void mixed() throws Exception {
		CyclicBarrier meet = new CyclicBarrier(2);
		Worker m = new Worker("mon-holder", () -> {
			synchronized (MON) {
				await(meet);
				RL_A.lock();
				sink++;
			}
		});
		Worker r = new Worker("rl-holder", () -> {
			RL_A.lock();
			try {
				await(meet);
				synchronized (MON) {
					sink++;
				}
			} finally {
				RL_A.unlock();
			}
		});
		m.announce("M");
		r.announce("R");
		awaitBlocked(m, "RL_A", "MON");
		awaitBlocked(r, "MON", "RL_A");
	}

	static void awaitIn(Worker w, int nr) throws InterruptedException {
		for (int i = 0; i < 3000; i++) {
			if (syscallNr(w.tid) == nr) {
				out("inread tid=" + w.tid);
				return;
			}
			Thread.sleep(10);
		}
		System.err.println("JucLocks: thread " + w.tid + " never in system call " + nr);
		System.exit(1);
	}

	/* blocks in read(2) on a pipe nobody writes */
	static void readForever(java.nio.channels.Pipe p) {
		try {
			p.source().read(java.nio.ByteBuffer.allocate(1));
		} catch (Exception e) {
			throw new RuntimeException(e);
		}
	}

	static void notifyHeld() throws Exception {
		Worker[] mw = new Worker[3], cw = new Worker[3];
		for (int i = 0; i < 3; i++) {
			mw[i] = new Worker("mon-waiter-" + i, () -> {
				synchronized (MON) {
					try {
						MON.wait();
					} catch (InterruptedException e) {
					}
				}
			});
			cw[i] = new Worker("cv-waiter-" + i, () -> {
				RL_A.lock();
				try {
					COND.await();
				} catch (InterruptedException e) {
				} finally {
					RL_A.unlock();
				}
			});
		}
		for (int i = 0; i < 3; i++) {
			mw[i].announce("MW" + i);
			cw[i].announce("CW" + i);
		}
		for (int i = 0; i < 3; i++) {
			awaitBlocked(mw[i], "MON-notify", "-");
			awaitBlocked(cw[i], "COND-signal", "-");
		}
		java.nio.channels.Pipe p1 = java.nio.channels.Pipe.open(), p2 = java.nio.channels.Pipe.open();
		Worker mo = new Worker("mon-owner", () -> {
			synchronized (MON) {
				readForever(p1);
			}
		});
		Worker ro = new Worker("rl-owner", () -> {
			RL_A.lock();
			try {
				readForever(p2);
			} finally {
				RL_A.unlock();
			}
		});
		mo.announce("MO");
		ro.announce("RO");
		awaitIn(mo, 0);
		awaitIn(ro, 0);
		Thread.sleep(500); /* asleep in read() for a while: they keep what they hold */
	}

	static void waitDeadlock() throws Exception {
		CyclicBarrier meet = new CyclicBarrier(2);
		Worker w = new Worker("wd-W", () -> {
			synchronized (MON) {
				synchronized (MON2) {
					await(meet);
					try {
						MON2.wait();
					} catch (InterruptedException e) {
					}
				}
			}
		});
		w.announce("W");
		Worker h = new Worker("wd-H", () -> {
			await(meet);
			synchronized (MON2) {
				synchronized (MON) {
					sink++;
				}
			}
		});
		h.announce("H");
		awaitBlocked(w, "MON2-notify", "MON");
		awaitBlocked(h, "MON", "MON2");
		Thread.sleep(500); /* H asleep for a while: it keeps MON2 */
	}

	/* waitfor-child FLOCK FILE [timed]: thread wf-W starts `FLOCK FILE
	 * true` (the file held by another process: the child waits for the
	 * lock) and waits for it in Process.waitFor() (timed: waitFor(600 s)),
	 * which the JDK's process reaper thread ends once its waitpid returns. */
	static void waitforChild(String flock, String file, boolean timed) throws Exception {
		waitforProcess(new ProcessBuilder(flock, file, "true").start(), timed);
	}

	/* waitfor-pipe: the main thread starts `head -c 1000000 /dev/zero` with
	 * its stdout a pipe nobody reads, says `ready` and waits for it in
	 * Process.waitFor(), for ever: the child blocks writing the full pipe
	 * (the deadlock Process's documentation warns of).  No other thread of
	 * the program's own: the JVM's. */
	static void waitforPipe() throws Exception {
		Process p = new ProcessBuilder("head", "-c", "1000000", "/dev/zero").start();
		out("thread role=W idx=0 tid=" + myTid() + " name=main");
		out("child pid=" + p.pid());
		out("ready");
		p.waitFor();
		System.exit(0);
	}

	static void waitforProcess(Process p, boolean timed) throws Exception {
		Worker w = new Worker("wf-W", () -> {
			try {
				if (timed)
					p.waitFor(600, java.util.concurrent.TimeUnit.SECONDS);
				else
					p.waitFor();
			} catch (InterruptedException e) {
				throw new RuntimeException(e);
			}
		});
		w.announce("W");
		out("child pid=" + p.pid());
		awaitBlocked(w, "child", "-");
	}

	/* a single-thread executor whose one thread has NAME */
	static java.util.concurrent.ExecutorService singleThread(String name) {
		return java.util.concurrent.Executors.newSingleThreadExecutor(r -> {
			Thread t = new Thread(r, name);
			t.setDaemon(true);
			return t;
		});
	}

	static void futurePipe() throws Exception {
		java.nio.channels.Pipe p = java.nio.channels.Pipe.open();
		java.util.concurrent.ExecutorService ex = singleThread("fut-runner");
		Worker[] runner = new Worker[1];
		java.util.concurrent.CountDownLatch started = new java.util.concurrent.CountDownLatch(1);
		java.util.concurrent.Future<?> f = ex.submit(() -> {
			runner[0] = new Worker(Thread.currentThread(), myTid());
			started.countDown();
			readForever(p);
		});
		started.await();
		Worker g = new Worker("fut-getter", () -> {
			try {
				f.get();
			} catch (Exception e) {
			}
		});
		g.announce("G");
		runner[0].announce("R");
		awaitBlocked(g, "future", "-");
		awaitIn(runner[0], 0);
		Thread.sleep(500); /* the runner asleep in read() for a while */
	}

	/* a task queued behind one stuck in read() of a pipe nobody writes: the
	 * one thread of its executor is blocked in native code, not by the JVM */
	static void futureQueuedIo() throws Exception {
		java.nio.channels.Pipe p = java.nio.channels.Pipe.open();
		java.util.concurrent.ExecutorService ex = singleThread("fq-pool");
		Worker[] pool = new Worker[1];
		java.util.concurrent.CountDownLatch started = new java.util.concurrent.CountDownLatch(1);
		ex.submit(() -> {
			pool[0] = new Worker(Thread.currentThread(), myTid());
			started.countDown();
			readForever(p);
		});
		started.await();
		java.util.concurrent.Future<?> f = ex.submit(() -> sink++);
		Worker g = new Worker("fq-getter", () -> {
			try {
				f.get();
			} catch (Exception e) {
			}
		});
		g.announce("G");
		pool[0].announce("P");
		awaitBlocked(g, "future", "-");
		awaitIn(pool[0], 0);
		Thread.sleep(500); /* the pool thread asleep in read() for a while */
	}

	/* a scheduled executor's one thread stuck in read() of a pipe nobody
	 * writes; a task scheduled now (due, queued in its DelayedWorkQueue)
	 * and one scheduled in an hour, each waited for by a getter */
	static void futureSched() throws Exception {
		java.nio.channels.Pipe p = java.nio.channels.Pipe.open();
		java.util.concurrent.ScheduledThreadPoolExecutor ex = new java.util.concurrent.ScheduledThreadPoolExecutor(1, r -> {
			Thread t = new Thread(r, "fs-pool");
			t.setDaemon(true);
			return t;
		});
		Worker[] pool = new Worker[1];
		java.util.concurrent.CountDownLatch started = new java.util.concurrent.CountDownLatch(1);
		ex.execute(() -> {
			pool[0] = new Worker(Thread.currentThread(), myTid());
			started.countDown();
			readForever(p);
		});
		started.await();
		java.util.concurrent.Future<?> due = ex.schedule(() -> sink++, 0, java.util.concurrent.TimeUnit.SECONDS);
		java.util.concurrent.Future<?> later = ex.schedule(() -> sink++, 1, java.util.concurrent.TimeUnit.HOURS);
		Worker g = new Worker("fs-due-getter", () -> {
			try {
				due.get();
			} catch (Exception e) {
			}
		});
		Worker l = new Worker("fs-later-getter", () -> {
			try {
				later.get();
			} catch (Exception e) {
			}
		});
		g.announce("G");
		l.announce("L");
		pool[0].announce("P");
		awaitBlocked(g, "future", "-");
		awaitBlocked(l, "future", "-");
		awaitIn(pool[0], 0);
		Thread.sleep(500);
	}

	static void futureStarve() throws Exception {
		java.util.concurrent.ExecutorService ex = singleThread("starve-pool");
		Worker[] pool = new Worker[1];
		java.util.concurrent.CountDownLatch started = new java.util.concurrent.CountDownLatch(1);
		ex.submit(() -> {
			pool[0] = new Worker(Thread.currentThread(), myTid());
			started.countDown();
			try {
				ex.submit(() -> sink++).get();
			} catch (Exception e) {
			}
		});
		started.await();
		pool[0].announce("P");
		awaitBlocked(pool[0], "future", "-");
		Thread.sleep(500);
	}

	static void futureCycle() throws Exception {
		java.util.concurrent.ExecutorService ex = singleThread("fc-runner");
		Worker[] runner = new Worker[1];
		java.util.concurrent.CountDownLatch started = new java.util.concurrent.CountDownLatch(1);
		Worker g = new Worker("fc-getter", () -> {
			RL_A.lock();
			try {
				ex.submit(() -> {
					runner[0] = new Worker(Thread.currentThread(), myTid());
					started.countDown();
					RL_A.lock();
				}).get();
			} catch (Exception e) {
			} finally {
				RL_A.unlock();
			}
		});
		started.await();
		g.announce("G");
		runner[0].announce("R");
		awaitBlocked(g, "future", "RL_A");
		awaitBlocked(runner[0], "RL_A", "-");
		Thread.sleep(500);
	}

	static void joinPipe() throws Exception {
		java.nio.channels.Pipe p = java.nio.channels.Pipe.open();
		Worker w = new Worker("jp-worker", () -> readForever(p));
		Worker j = new Worker("jp-joiner", () -> {
			try {
				w.thread.join();
			} catch (InterruptedException e) {
			}
		});
		j.announce("J");
		w.announce("W");
		awaitBlocked(j, "W-exit", "-");
		awaitIn(w, 0);
		Thread.sleep(500);
	}

	static void joinLock() throws Exception {
		Worker[] b = new Worker[1];
		java.util.concurrent.CountDownLatch started = new java.util.concurrent.CountDownLatch(1);
		Worker a = new Worker("jl-A", () -> {
			RL_A.lock();
			try {
				b[0] = new Worker("jl-B", () -> RL_A.lock());
				started.countDown();
				b[0].thread.join();
			} catch (InterruptedException e) {
			} finally {
				RL_A.unlock();
			}
		});
		started.await();
		a.announce("A");
		b[0].announce("B");
		awaitBlocked(a, "B-exit", "RL_A");
		awaitBlocked(b[0], "RL_A", "-");
		Thread.sleep(500);
	}

	static void sleepForever() {
		for (;;) {
			try {
				Thread.sleep(1000000000L);
			} catch (InterruptedException e) {
			}
		}
	}

	static Worker joiner(String name, Worker of) {
		return new Worker(name, () -> {
			try {
				of.thread.join();
			} catch (InterruptedException e) {
			}
		});
	}

	static void joinFree() throws Exception {
		java.util.concurrent.ExecutorService ex = singleThread("jf-busy");
		Worker[] runner = new Worker[1];
		java.util.concurrent.CountDownLatch started = new java.util.concurrent.CountDownLatch(1);
		java.util.concurrent.Future<?> f = ex.submit(() -> {
			runner[0] = new Worker(Thread.currentThread(), myTid());
			started.countDown();
			for (;;)
				sink++;
		});
		started.await();
		runner[0].announce("BR");
		Worker g = new Worker("jf-getter", () -> {
			try {
				f.get();
			} catch (Exception e) {
			}
		});
		g.announce("G");
		Worker bj = joiner("jf-bjoiner", runner[0]);
		bj.announce("BJ");
		Worker sl = new Worker("jf-sleeper", JucLocks::sleepForever);
		sl.announce("S");
		Worker sj = joiner("jf-sjoiner", sl);
		sj.announce("SJ");
		java.util.concurrent.LinkedBlockingQueue<Object> q = new java.util.concurrent.LinkedBlockingQueue<>();
		Worker id = new Worker("jf-idle", () -> {
			try {
				q.take();
			} catch (InterruptedException e) {
			}
		});
		id.announce("I");
		Worker ij = joiner("jf-ijoiner", id);
		ij.announce("IJ");
		java.util.concurrent.CountDownLatch held = new java.util.concurrent.CountDownLatch(1);
		Worker h = new Worker("jf-holder", () -> {
			RL_B.lock();
			held.countDown();
			sleepForever();
		});
		h.announce("H");
		held.await();
		Worker l = new Worker("jf-locked", () -> RL_B.lock());
		l.announce("L");
		Worker lj = joiner("jf-ljoiner", l);
		lj.announce("LJ");
		awaitBlocked(g, "future", "-");
		awaitBlocked(bj, "BR-exit", "-");
		awaitBlocked(sl, "sleep", "-");
		awaitBlocked(sj, "S-exit", "-");
		awaitBlocked(id, "queue", "-");
		awaitBlocked(ij, "I-exit", "-");
		awaitBlocked(h, "sleep", "RL_B");
		awaitBlocked(l, "RL_B", "-");
		awaitBlocked(lj, "L-exit", "-");
		Thread.sleep(500);
	}

	/* Parties of a CyclicBarrier (PHASER false) or a Phaser of 3 wait for
	 * "late", which blocks in read() on a pipe nobody writes before it
	 * would arrive; the main thread then joins late (no thread of the
	 * process is on a timer). */
	static void partiesLate(boolean phaser) throws Exception {
		String pre = phaser ? "ph-" : "cb-";
		/* an executor whose two workers wait for tasks beside them */
		java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(2);
		pool.submit(() -> 1).get();
		pool.submit(() -> 1).get();
		CyclicBarrier b = new CyclicBarrier(3);
		java.util.concurrent.Phaser ph = new java.util.concurrent.Phaser(3);
		Runnable arrive = () -> {
			if (phaser)
				ph.arriveAndAwaitAdvance();
			else
				await(b);
		};
		Worker[] p = new Worker[2];
		for (int i = 0; i < 2; i++) {
			p[i] = new Worker(pre + "party-" + i, arrive);
			p[i].announce("P" + i);
		}
		java.nio.channels.Pipe pipe = java.nio.channels.Pipe.open();
		Worker late = new Worker(pre + "late", () -> {
			readForever(pipe);
			arrive.run();
		});
		late.announce("L");
		for (int i = 0; i < 2; i++)
			awaitBlocked(p[i], phaser ? "phaser" : "barrier", "-");
		awaitIn(late, 0);
		Thread.sleep(500);
		out("ready");
		late.thread.join();
	}

	/* "fu-getter" waits in get() of a CompletableFuture that "cf-late"
	 * (FJ false) completes, or of a ForkJoinTask that a ForkJoinPool's
	 * worker runs (FJ true), after a read() on a pipe nobody writes; the
	 * main thread joins the getter after "ready" (no thread on a timer). */
	static void futureLate(boolean fj) throws Exception {
		java.nio.channels.Pipe pipe = java.nio.channels.Pipe.open();
		java.util.concurrent.CompletableFuture<Integer> cf = new java.util.concurrent.CompletableFuture<>();
		java.util.concurrent.Future<?> task;
		Worker late;
		if (fj) {
			java.util.concurrent.ForkJoinPool pool = new java.util.concurrent.ForkJoinPool(1);
			Worker[] w = new Worker[1];
			java.util.concurrent.CountDownLatch started = new java.util.concurrent.CountDownLatch(1);
			task = pool.submit(() -> {
				w[0] = new Worker(Thread.currentThread(), myTid());
				started.countDown();
				readForever(pipe);
			});
			started.await();
			late = w[0];
		} else {
			task = cf;
			late = new Worker("cf-late", () -> {
				readForever(pipe);
				cf.complete(1);
			});
		}
		late.announce("L");
		Worker g = new Worker("fu-getter", () -> {
			try {
				task.get();
			} catch (Exception e) {
			}
		});
		g.announce("G");
		awaitBlocked(g, fj ? "fjtask" : "cfuture", "-");
		awaitIn(late, 0);
		Thread.sleep(500);
		out("ready");
		g.thread.join();
	}

	static final java.util.concurrent.LinkedBlockingQueue<Integer> HO_LBQ = new java.util.concurrent.LinkedBlockingQueue<>();
	static final java.util.concurrent.ArrayBlockingQueue<Integer> HO_ABQ = new java.util.concurrent.ArrayBlockingQueue<>(1);
	static final java.util.concurrent.SynchronousQueue<Integer> HO_SQ = new java.util.concurrent.SynchronousQueue<>();
	static final java.util.concurrent.Exchanger<Integer> HO_EX = new java.util.concurrent.Exchanger<>();
	static final Mon HO_MON = new Mon();
	static final java.util.concurrent.CountDownLatch HO_LATCH = new java.util.concurrent.CountDownLatch(1);
	static final java.util.concurrent.Semaphore HO_SEM = new java.util.concurrent.Semaphore(0);

	/* the waiter's side of handoff-late: one call, its caller this frame */
	static void handoffWait(String kind) throws InterruptedException {
		switch (kind) {
		case "take": HO_LBQ.take(); break;
		case "put": HO_ABQ.put(2); break;
		case "sq": HO_SQ.take(); break;
		case "exchange": HO_EX.exchange(1); break;
		case "wait": synchronized (HO_MON) { HO_MON.wait(); } break;
		case "park": java.util.concurrent.locks.LockSupport.park(); break;
		case "latch": HO_LATCH.await(); break;
		case "semaphore": HO_SEM.acquire(); break;
		default: throw new IllegalArgumentException(kind);
		}
	}

	static void handoffLate(String kind) throws Exception {
		HO_ABQ.add(1); /* full */
		java.nio.channels.Pipe pipe = java.nio.channels.Pipe.open();
		Worker w = new Worker("ho-waiter", () -> {
			try {
				handoffWait(kind);
			} catch (InterruptedException e) {
			}
		});
		w.announce("W");
		Worker late = new Worker("ho-late", () -> {
			readForever(pipe);
			HO_LBQ.add(1);
			HO_ABQ.poll();
			HO_SQ.offer(1);
			synchronized (HO_MON) {
				HO_MON.notifyAll();
			}
			java.util.concurrent.locks.LockSupport.unpark(w.thread);
			HO_LATCH.countDown();
			HO_SEM.release();
		});
		late.announce("L");
		awaitBlocked(w, kind, "-");
		awaitIn(late, 0);
		Thread.sleep(500);
		out("ready");
		w.thread.join();
	}

	public static void main(String[] args) throws Exception {
		out("pid=" + ProcessHandle.current().pid());
		switch (args.length > 0 ? args[0] : "") {
		case "rl-deadlock": rlDeadlock(); break;
		case "mixed": mixed(); break;
		case "rw-deadlock": rwDeadlock(); break;
		case "notify-held": notifyHeld(); break;
		case "wait-deadlock": waitDeadlock(); break;
		case "rl-exited": rlExited(); break;
		case "shared-waits": sharedWaits(); break;
		case "read-cycle": readCycle(); break;
		case "waitfor-child": waitforChild(args[1], args[2], args.length > 3 && args[3].equals("timed")); break;
		case "waitfor-pipe": waitforPipe(); break;
		case "future-pipe": futurePipe(); break;
		case "future-starve": futureStarve(); break;
		case "future-queued-io": futureQueuedIo(); break;
		case "future-sched": futureSched(); break;
		case "join-lock": joinLock(); break;
		case "join-pipe": joinPipe(); break;
		case "future-cycle": futureCycle(); break;
		case "join-free": joinFree(); break;
		case "barrier-late": partiesLate(false); break;
		case "phaser-late": partiesLate(true); break;
		case "cfuture-late": futureLate(false); break;
		case "fjtask-late": futureLate(true); break;
		case "handoff-late": handoffLate(args[1]); break;
		default:
			System.err.println("usage: JucLocks rl-deadlock|mixed|rw-deadlock|notify-held|wait-deadlock|rl-exited|shared-waits|read-cycle "
					   + "|waitfor-child FLOCK FILE [timed]|waitfor-pipe|future-pipe|future-starve|future-queued-io|future-sched|future-cycle|join-lock|join-pipe|join-free|barrier-late|phaser-late|cfuture-late|fjtask-late "
					   + "[--no-wait]");
			System.exit(2);
		}
		if (!args[0].equals("notify-held") && !args[0].equals("rl-exited") && !args[0].equals("shared-waits") &&
		    !args[0].equals("waitfor-child") && !args[0].equals("waitfor-pipe") && (!args[0].startsWith("future-") || args[0].equals("future-cycle")) && !args[0].equals("join-pipe") &&
		    !args[0].equals("join-free"))
			out("deadlocked");
		out("ready");
		for (;;)
			Thread.sleep(1000000);
	}
}
