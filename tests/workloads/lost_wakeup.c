/*
 * lost_wakeup - a hand-rolled futex lock whose waiter sleeps forever.
 *
 *   lost_wakeup [--no-wait]
 *
 * The lock is the global int `lockword` (0 free, 1 locked, 2 locked with
 * waiters).  Its bug is the classic one: a contended locker waits with
 * value 1 without marking the word "has waiters" (2), and unlock only
 * issues FUTEX_WAKE when it sees 2.  Deterministically:
 *   main locks (lockword=1); the waiter finds it taken and sleeps in
 *   FUTEX_WAIT_PRIVATE(&lockword, 1); once /proc shows it asleep there, main
 *   unlocks: lockword=0, no wake.
 * The waiter now sleeps in FUTEX_WAIT on a word that no longer holds the
 * value it waited for, and nobody will wake it.  Then the gate; then the
 * program hangs until killed.  Prints:
 *
 *   pid=PID
 *   lock name=lockword addr=0x... kind=futex expected=1
 *   thread role=unlocker idx=0 tid=PID      (main thread)
 *   thread role=waiter idx=0 tid=T
 *   waiter tid=T
 *   current=0
 *   ready
 */
#include "workload.h"
#include <linux/futex.h>
#include <sys/syscall.h>

#define USAGE "[--no-wait]"

int lockword;

static void lw_lock(void)
{
	if (__atomic_exchange_n(&lockword, 1, __ATOMIC_ACQUIRE) == 0)
		return;
	/* BUG: should exchange in 2 ("locked, has waiters") and wait on 2. */
	while (__atomic_exchange_n(&lockword, 1, __ATOMIC_ACQUIRE) != 0)
		syscall(SYS_futex, &lockword, FUTEX_WAIT_PRIVATE, 1, NULL, NULL, 0);
}

static void lw_unlock(void)
{
	/* Wakes only if someone marked the word contended; nobody did. */
	if (__atomic_exchange_n(&lockword, 0, __ATOMIC_RELEASE) == 2)
		syscall(SYS_futex, &lockword, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static pid_t waiter_tid;

static void *waiter(void *arg)
{
	(void)arg;
	__atomic_store_n(&waiter_tid, wl_thread("waiter", 0), __ATOMIC_RELEASE);
	lw_lock(); /* never returns */
	return NULL;
}

int main(int argc, char **argv)
{
	static const struct wl_opt opts[] = { { 0 } };
	int no_wait = wl_args(argc, argv, opts, USAGE);

	wl_begin();
	printf("lock name=lockword addr=%p kind=futex expected=1\n",
	       (void *)&lockword);
	wl_thread("unlocker", 0);

	lw_lock();
	pthread_t t;
	wl_create(&t, NULL, waiter, NULL);
	pid_t tid = wl_wait_tid(&waiter_tid);
	wl_wait_blocked(tid, SYS_futex, (unsigned long)&lockword);
	lw_unlock(); /* the lost wake-up */

	printf("waiter tid=%d\n", (int)tid);
	printf("current=%d\n", __atomic_load_n(&lockword, __ATOMIC_RELAXED));
	wl_gate(no_wait);
	wl_hang();
}
