/* Placeholder: the ocaml runtime lock model (see lockmodel.h). */
#include "locktrace/lockmodel.h"

static int find(const struct lt_lm_env *e, struct lt_rtlock **v, size_t *n, struct lt_strlist *notes)
{
	(void)e, (void)v, (void)n, (void)notes;
	return 0;
}

const struct lt_lockmodel lt_lm_ocaml = { "ocaml", find };
