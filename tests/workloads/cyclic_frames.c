/*
 * cyclic_frames - a thread whose frame-pointer chain loops: the saved
 * frame pointer of one of its frames points at that frame itself, so a
 * walk of the chain (by the CFI, which here restores rbp from the frame,
 * or by frame pointers alone) comes back to the same caller frame for
 * ever.  What an unwinder must detect and say, not print 64 copies of.
 *
 *   cyclic_frames [--no-wait]
 *
 * Thread "cyclic" calls cf_outer(), which calls cf_looper(): both keep a
 * frame pointer; cf_looper overwrites its saved rbp with its own frame's
 * address, then blocks in read() on a pipe nobody writes (it can never
 * return: it hangs until killed).  Prints, once the thread is in read()
 * (verified in /proc/self/task/T/syscall):
 *
 *   pid=PID
 *   thread role=cyclic idx=0 tid=T
 *   frame func=cf_looper fp=0x... saved=0x...   (saved: the looping value)
 *   ready
 */
#include "workload.h"

#define USAGE "[--no-wait]"

static int pipe_fds[2];
static volatile pid_t cyclic_tid;
static void *volatile looper_fp;

#define FP_FUNC __attribute__((noinline, optimize("no-omit-frame-pointer")))

static FP_FUNC void cf_looper(void)
{
	void **fp = __builtin_frame_address(0);
	looper_fp = fp;
	fp[0] = fp; /* the caller's saved rbp: now this very frame */
	__asm__ volatile("" ::: "memory");
	char byte;
	for (;;)
		if (read(pipe_fds[0], &byte, 1) >= 0)
			wl_die("read: unexpected data/EOF");
}

static FP_FUNC void cf_outer(void)
{
	cf_looper();
	__asm__ volatile("" ::: "memory"); /* not a tail call */
}

static void *cyclic(void *arg)
{
	(void)arg;
	cyclic_tid = wl_thread("cyclic", 0);
	cf_outer();
	return NULL;
}

static int in_read(pid_t tid)
{
	char path[64], buf[64] = "";
	snprintf(path, sizeof path, "/proc/self/task/%d/syscall", (int)tid);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	int ok = fgets(buf, sizeof buf, f) && !strncmp(buf, "0 ", 2);
	fclose(f);
	return ok;
}

int main(int argc, char **argv)
{
	int no_wait = WL_ARGS(argc, argv, USAGE, { 0 });
	wl_begin();
	if (pipe(pipe_fds))
		wl_die("pipe: %s", strerror(errno));
	pthread_t t;
	wl_create(&t, NULL, cyclic, NULL);
	int i = 0;
	for (; i < 5000 && !(cyclic_tid && looper_fp && in_read(cyclic_tid)); i++)
		wl_sleep_ms(2);
	if (i == 5000)
		wl_die("the cyclic thread never blocked in read()");
	void **fp = looper_fp;
	printf("frame func=cf_looper fp=%p saved=%p\n", (void *)fp, fp[0]);
	wl_gate(no_wait);
	wl_hang();
}
