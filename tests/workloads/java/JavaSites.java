/* JavaSites - two Java methods take the same lock at known lines while a
 * holder thread keeps it for known times: the call sites `record --stacks`
 * must name in Java's terms (tests/live/test_java_stacks_live.c).
 *
 *   java -cp build/workloads/java JavaSites MODE [-r ROUNDS=4] [-a HOLD_A_MS=60]
 *        [-b HOLD_B_MS=30] [--warm N] [--no-wait]
 *
 * MODE monitor: the lock is the monitor of MON (a `synchronized` block);
 * MODE juc: a java.util.concurrent.locks.ReentrantLock.
 * After "ready" it reads one line from stdin (EOF also starts) unless
 * --no-wait (tests/workloads/README.md): a recorder attached with -p has
 * read the JVM's tables by then.
 * --warm N: before "ready", each site takes the lock N times while another
 * thread takes it too (so that its contended path is profiled, and the
 * compiled sites do not deoptimize at their first wait), so that the JIT
 * compiles the sites (with -Xbatch, before the rounds: 20000 gets them
 * compiled by C2) while the waiter's lambda, which calls them once a
 * round, stays interpreted.
 *
 * In each round the holder thread takes the lock; the waiter thread calls
 * siteAlpha, which takes it at a known line and sleeps in futex() (the
 * holder checks /proc/self/task/T/syscall); the holder keeps it HOLD_A_MS
 * more, then releases it.  The same for siteBeta with HOLD_B_MS.  Ground
 * truth on stdout (one fact per line):
 *   pid=PID
 *   ready
 *   thread role=waiter idx=0 tid=T
 *   thread role=holder idx=0 tid=T
 *   site name=alpha func=JavaSites.siteAlpha line=N file=JavaSites.java  (the lock's line)
 *   site name=beta func=JavaSites.siteBeta line=N file=JavaSites.java
 *   done rounds=R alpha_wait_us=U beta_wait_us=U alpha_hold_us=H beta_hold_us=H
 * (U: the waiter's own measure of its total wait at each site; H: the
 * holder's of its total hold while the waiter waited there).
 */
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.locks.ReentrantLock;

public class JavaSites {
	static final class Mon { }

	static final Object MON = new Mon();
	static final ReentrantLock RL = new ReentrantLock();
	static boolean juc;
	static volatile int phase;
	static volatile boolean warmStop;
	static volatile int waiterTid;
	static long waitA, waitB, holdA, holdB;
	static int lineA, lineB;

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

	/* the caller's line */
	static int line() {
		return new Throwable().getStackTrace()[1].getLineNumber();
	}

	static void siteAlpha() {
		long t0 = System.nanoTime();
		if (juc) {
			lineA = line(); RL.lock();
			try {
				waitA += System.nanoTime() - t0;
			} finally {
				RL.unlock();
			}
		} else {
			/* one line: blocked in monitorenter, the JVM's frame is at the
			 * instruction after it (its template has moved the bcp on) */
			lineA = line(); synchronized (MON) { waitA += System.nanoTime() - t0; }
		}
	}

	static void siteBeta() {
		long t0 = System.nanoTime();
		if (juc) {
			lineB = line(); RL.lock();
			try {
				waitB += System.nanoTime() - t0;
			} finally {
				RL.unlock();
			}
		} else {
			/* one line: blocked in monitorenter, the JVM's frame is at the
			 * instruction after it (its template has moved the bcp on) */
			lineB = line(); synchronized (MON) { waitB += System.nanoTime() - t0; }
		}
	}

	/* Until the waiter sleeps in futex() (202 on x86-64), 10 s at most. */
	static void waitAsleep() throws Exception {
		Path p = Path.of("/proc/self/task/" + waiterTid + "/syscall");
		for (int i = 0; i < 50000; i++) {
			String s = Files.readString(p).trim();
			if (s.startsWith("202 "))
				return;
			Thread.sleep(0, 200000);
		}
		throw new IllegalStateException("the waiter never slept in futex()");
	}

	static void spinUntil(int want) throws InterruptedException {
		while (phase < want)
			Thread.sleep(1);
	}

	/* The holder's part of one wait: take the lock, let the waiter in, see
	 * it asleep, hold MS more, release.  Its hold time in ns. */
	static long holdFor(int step, int ms) throws Exception {
		long t0;
		if (juc) {
			RL.lock();
			t0 = System.nanoTime();
			try {
				phase = step;
				waitAsleep();
				Thread.sleep(ms);
			} finally {
				t0 = System.nanoTime() - t0;
				RL.unlock();
			}
		} else {
			synchronized (MON) {
				t0 = System.nanoTime();
				phase = step;
				waitAsleep();
				Thread.sleep(ms);
				t0 = System.nanoTime() - t0;
			}
		}
		spinUntil(step + 1);
		return t0;
	}

	/* --warm's other taker of the lock */
	static void contend() {
		while (!warmStop) {
			if (juc) {
				RL.lock();
				try { Thread.onSpinWait(); } finally { RL.unlock(); }
			} else {
				synchronized (MON) { Thread.onSpinWait(); }
			}
		}
	}

	static void usage() {
		System.err.println("usage: JavaSites monitor|juc [-r ROUNDS=4] [-a HOLD_A_MS=60] [-b HOLD_B_MS=30] [--warm N] [--no-wait]");
		System.exit(2);
	}

	static int num(String s, int lo, int hi) {
		try {
			int n = Integer.parseInt(s);
			if (n >= lo && n <= hi)
				return n;
		} catch (NumberFormatException e) {
		}
		usage();
		return 0;
	}

	public static void main(String[] args) throws Exception {
		int rounds = 4, a = 60, b = 30, warm = 0;
		boolean noWait = false;
		if (args.length < 1 || !(args[0].equals("monitor") || args[0].equals("juc")))
			usage();
		juc = args[0].equals("juc");
		for (int i = 1; i < args.length; i++) {
			if (args[i].equals("-r") && i + 1 < args.length)
				rounds = num(args[++i], 1, 1000);
			else if (args[i].equals("-a") && i + 1 < args.length)
				a = num(args[++i], 1, 10000);
			else if (args[i].equals("-b") && i + 1 < args.length)
				b = num(args[++i], 1, 10000);
			else if (args[i].equals("--warm") && i + 1 < args.length)
				warm = num(args[++i], 0, 1000000);
			else if (args[i].equals("--no-wait"))
				noWait = true;
			else
				usage();
		}
		out("pid=" + ProcessHandle.current().pid());
		if (warm > 0) {
			/* a method reference: no lambda$main$N of its own, the
			 * waiter's stays lambda$main$0 */
			Thread c = new Thread(JavaSites::contend, "warm-contender");
			c.start();
			for (int i = 0; i < warm; i++) {
				siteAlpha();
				siteBeta();
			}
			warmStop = true;
			c.join();
		}
		waitA = waitB = 0;
		out("ready");
		if (!noWait)
			new BufferedReader(new InputStreamReader(System.in)).readLine();
		final int n = rounds, ha = a, hb = b;
		final long[] holds = new long[2];
		Thread w = new Thread(() -> {
			waiterTid = myTid();
			out("thread role=waiter idx=0 tid=" + waiterTid);
			try {
				int step = 1;
				for (int r = 0; r < n; r++) {
					spinUntil(step);
					siteAlpha();
					phase = step + 1;
					step += 2;
					spinUntil(step);
					siteBeta();
					phase = step + 1;
					step += 2;
				}
			} catch (InterruptedException e) {
				throw new RuntimeException(e);
			}
		}, "site-waiter");
		w.start();
		while (waiterTid == 0)
			Thread.sleep(1);
		Thread h = new Thread(() -> {
			out("thread role=holder idx=0 tid=" + myTid());
			try {
				int step = 1;
				for (int r = 0; r < n; r++) {
					holds[0] += holdFor(step, ha);
					step += 2;
					holds[1] += holdFor(step, hb);
					step += 2;
				}
			} catch (Exception e) {
				throw new RuntimeException(e);
			}
		}, "site-holder");
		h.start();
		h.join();
		w.join();
		out("site name=alpha func=JavaSites.siteAlpha line=" + lineA + " file=JavaSites.java");
		out("site name=beta func=JavaSites.siteBeta line=" + lineB + " file=JavaSites.java");
		out("done rounds=" + n + " alpha_wait_us=" + waitA / 1000 + " beta_wait_us=" + waitB / 1000 +
		    " alpha_hold_us=" + holds[0] / 1000 + " beta_hold_us=" + holds[1] / 1000);
	}
}
