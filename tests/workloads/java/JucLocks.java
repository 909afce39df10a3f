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
 *
 * Prints (one fact per line):
 *   pid=PID
 *   thread role=R idx=0 tid=T name=NAME     (the tid read from /proc/thread-self)
 *   blocked tid=T on=L holds=M              (Java says WAITING/BLOCKED and
 *                                            /proc/self/task/T/syscall says futex)
 *   deadlocked
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

	/* Until Java says the thread waits (parked or blocked) and the kernel
	 * says futex (202). */
	static void awaitBlocked(Worker w, String on, String holds) throws InterruptedException {
		for (int i = 0; i < 3000; i++) {
			Thread.State st = w.thread.getState();
			if ((st == Thread.State.WAITING || st == Thread.State.BLOCKED) && syscallNr(w.tid) == 202) {
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

	public static void main(String[] args) throws Exception {
		out("pid=" + ProcessHandle.current().pid());
		switch (args.length > 0 ? args[0] : "") {
		case "rl-deadlock": rlDeadlock(); break;
		case "mixed": mixed(); break;
		case "rw-deadlock": rwDeadlock(); break;
		default:
			System.err.println("usage: JucLocks rl-deadlock|mixed|rw-deadlock [--no-wait]");
			System.exit(2);
		}
		out("deadlocked");
		out("ready");
		for (;;)
			Thread.sleep(1000000);
	}
}
