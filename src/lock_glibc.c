/* glibc lock model (placeholder, filled next). */
#include "locktrace/lockmodel.h"

const char *lt_glibc_acquire_name(const char *func)
{
	(void)func;
	return NULL;
}

void lt_glibc_classify(const struct lt_lm_env *e, struct lt_thread *t)
{
	(void)e, (void)t;
}
