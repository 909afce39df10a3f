/* JavaLocks - Java processes stuck on monitors, with their ground truth.
 *
 *   java -cp build/workloads/java JavaLocks MODE [-w WAITERS] [--no-wait]
 *
 * deadlock (hangs): thread "worker-AB-holds-LockA" takes LockA, thread
 *   "worker-BA-holds-LockB-\u00e9\u2192" (a name only UTF-16 can hold)
 *   takes LockB; they meet at a barrier, then each enters the other's
 *   monitor.  WAITERS (default 0) more threads then block entering LockA,
 *   behind the cycle.
 * spin (hangs): thread "spinner-in-compiled-code-\u03bb" holds the monitor
 *   Hot and spins in a JIT-compiled loop for ever; WAITERS (default 1)
 *   threads block entering Hot.  `ready` comes after 3 s of spinning, by
 *   when the loop is compiled.
 * convoy (hangs): thread "holder-sleeping-in-LockA" sleeps inside LockA;
 *   WAITERS (default 24) threads block entering it.
 * compiled (hangs): thread "compiled-waiter" enters Hot millions of times
 *   through a small method until the JIT has compiled (and inlined) it,
 *   then "holder-of-Hot" takes Hot and sleeps: the waiter blocks inside
 *   compiled code.
 *
 * Prints (one fact per line, see tests/workloads/README.md):
 *   pid=PID
 *   lock name=LockA class=JavaLocks$LockA      (the monitors' classes)
 *   thread role=R idx=I tid=T namehex=H        (H: the Java name in UTF-8, hex)
 *   blocked tid=T on=L [holds=M]               (Java says BLOCKED and
 *                                               /proc/self/task/T/syscall says futex)
 *   frame tid=T idx=I at=C.m:L                 (what the JVM itself says of a
 *                                               blocked thread: getStackTrace(),
 *                                               innermost first; L -2 native,
 *                                               -1 unknown)
 *   deadlocked                                 (deadlock mode)
 *   ready
 * The tid is what the thread read from /proc/thread-self itself.  No start
 * gate: every mode is hung at `ready`; --no-wait is accepted for symmetry.
 */
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicInteger;

public class JavaLocks {
	static final class LockA { }
	static final class LockB { }
	static final class Hot { }

	static final Object LOCK_A = new LockA();
	static final Object LOCK_B = new LockB();
	static final Object HOT = new Hot();
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

	static String hex(String s) {
		StringBuilder b = new StringBuilder();
		for (byte x : s.getBytes(StandardCharsets.UTF_8))
			b.append(String.format("%02x", x & 0xff));
		return b.toString();
	}

	/* A started thread that records its own tid first. */
	static final class Worker {
		final Thread thread;
		final String role;
		final int idx;
		volatile int tid;

		Worker(String role, int idx, String name, Runnable body) {
			this.role = role;
			this.idx = idx;
			this.thread = new Thread(() -> {
				tid = myTid();
				body.run();
			}, name);
			thread.setDaemon(true);
			thread.start();
		}

		void announce() {
			while (tid == 0)
				Thread.onSpinWait();
			out("thread role=" + role + " idx=" + idx + " tid=" + tid + " namehex=" + hex(thread.getName()));
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

	/* Until Java says BLOCKED and the kernel says futex (202). */
	static void awaitBlocked(Worker w, String on, String holds) throws InterruptedException {
		for (int i = 0; i < 3000; i++) {
			if (w.thread.getState() == Thread.State.BLOCKED && syscallNr(w.tid) == 202) {
				out("blocked tid=" + w.tid + " on=" + on + (holds != null ? " holds=" + holds : ""));
				return;
			}
			Thread.sleep(10);
		}
		System.err.println("JavaLocks: thread " + w.tid + " never blocked on " + on);
		System.exit(1);
	}

	/* The JVM's own view of a thread's stack (it brings the thread to a
	 * handshake: fine here, the workload is not the tool). */
	static void printStack(Worker w) {
		int i = 0;
		for (StackTraceElement e : w.thread.getStackTrace())
			out("frame tid=" + w.tid + " idx=" + i++ + " at=" + e.getClassName() + "." + e.getMethodName() + ":"
			    + e.getLineNumber());
	}

	static void sleepForever() {
		for (;;) {
			try {
				Thread.sleep(1000000);
			} catch (InterruptedException e) {
				/* keep sleeping */
			}
		}
	}

	static void crosswise(Object first, Object second, CyclicBarrier meet) {
		synchronized (first) {
			try {
				meet.await();
			} catch (Exception e) {
				throw new RuntimeException(e);
			}
			synchronized (second) {
				sink++;
			}
		}
	}

	static List<Worker> waiters(int n, Object lock, String prefix) {
		List<Worker> v = new ArrayList<>();
		for (int i = 0; i < n; i++)
			v.add(new Worker("waiter", i, prefix + "-waiter-" + i, () -> {
				synchronized (lock) {
					sink++;
				}
			}));
		return v;
	}

	static void deadlock(int nw) throws Exception {
		CyclicBarrier meet = new CyclicBarrier(2);
		Worker ab = new Worker("AB", 0, "worker-AB-holds-LockA", () -> crosswise(LOCK_A, LOCK_B, meet));
		Worker ba = new Worker("BA", 0, "worker-BA-holds-LockB-\u00e9\u2192", () -> crosswise(LOCK_B, LOCK_A, meet));
		ab.announce();
		ba.announce();
		awaitBlocked(ab, "LockB", "LockA");
		awaitBlocked(ba, "LockA", "LockB");
		printStack(ab);
		printStack(ba);
		List<Worker> ws = waiters(nw, LOCK_A, "behind-the-cycle");
		for (Worker w : ws)
			w.announce();
		for (Worker w : ws)
			awaitBlocked(w, "LockA", null);
		out("deadlocked");
	}

	static long spinOnce(long n) {
		long acc = sink;
		for (long i = 0; i < n; i++)
			acc += i ^ (acc >>> 3);
		return acc;
	}

	static void spin(int nw) throws Exception {
		AtomicInteger holding = new AtomicInteger();
		Worker s = new Worker("spinner", 0, "spinner-in-compiled-code-\u03bb", () -> {
			synchronized (HOT) {
				holding.set(1);
				for (;;)
					sink = spinOnce(100000);
			}
		});
		s.announce();
		while (holding.get() == 0)
			Thread.sleep(1);
		List<Worker> ws = waiters(nw, HOT, "spin");
		for (Worker w : ws)
			w.announce();
		for (Worker w : ws)
			awaitBlocked(w, "Hot", null);
		Thread.sleep(3000);
	}

	static void compiledEnter(int i) {
		synchronized (HOT) {
			sink += i;
		}
	}

	static void compiledLoop(AtomicInteger warm) {
		for (int i = 0; ; i++) {
			compiledEnter(i);
			if (i == 5000000)
				warm.set(1);
		}
	}

	static void compiled() throws Exception {
		AtomicInteger warm = new AtomicInteger(), holding = new AtomicInteger();
		Worker w = new Worker("waiter", 0, "compiled-waiter", () -> compiledLoop(warm));
		w.announce();
		while (warm.get() == 0)
			Thread.sleep(10);
		Thread.sleep(2000); /* let the compiler finish */
		Worker h = new Worker("holder", 0, "holder-of-Hot", () -> {
			synchronized (HOT) {
				holding.set(1);
				sleepForever();
			}
		});
		h.announce();
		awaitBlocked(w, "Hot", null);
		printStack(w);
	}

	static void convoy(int nw) throws Exception {
		AtomicInteger holding = new AtomicInteger();
		Worker h = new Worker("holder", 0, "holder-sleeping-in-LockA", () -> {
			synchronized (LOCK_A) {
				holding.set(1);
				sleepForever();
			}
		});
		h.announce();
		while (holding.get() == 0)
			Thread.sleep(1);
		List<Worker> ws = waiters(nw, LOCK_A, "convoy");
		for (Worker w : ws)
			w.announce();
		for (Worker w : ws)
			awaitBlocked(w, "LockA", null);
	}

	public static void main(String[] args) throws Exception {
		String mode = args.length > 0 ? args[0] : "";
		int nw = -1;
		for (int i = 1; i < args.length; i++) {
			if (args[i].equals("-w") && i + 1 < args.length)
				nw = Integer.parseInt(args[++i]);
			else if (!args[i].equals("--no-wait"))
				mode = "?";
		}
		out("pid=" + ProcessHandle.current().pid());
		out("lock name=LockA class=" + LockA.class.getName());
		out("lock name=LockB class=" + LockB.class.getName());
		out("lock name=Hot class=" + Hot.class.getName());
		switch (mode) {
		case "deadlock": deadlock(nw < 0 ? 0 : nw); break;
		case "spin": spin(nw < 0 ? 1 : nw); break;
		case "convoy": convoy(nw < 0 ? 24 : nw); break;
		case "compiled": compiled(); break;
		default:
			System.err.println("usage: JavaLocks deadlock|spin|convoy|compiled [-w WAITERS] [--no-wait]");
			System.exit(2);
		}
		out("ready");
		sleepForever();
	}
}
