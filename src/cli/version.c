// SPDX-License-Identifier: MIT
/* What `locktrace --version` prints.  The Makefile writes build/git-version.h
 * (LT_GIT_DESCRIBE: `git describe` of the checkout, "" outside git, as in a
 * tarball); this is the only file that includes it, so a new commit
 * rebuilds this file alone. */
#include "cli_opts.h"
#include "version.h"
#if __has_include("git-version.h")
#include "git-version.h"
#endif
#ifndef LT_GIT_DESCRIBE
#define LT_GIT_DESCRIBE ""
#endif

const char *lt_version_string(void)
{
	return sizeof(LT_GIT_DESCRIBE) > 1 ? "locktrace " LT_VERSION " (git " LT_GIT_DESCRIBE ")"
					    : "locktrace " LT_VERSION;
}
