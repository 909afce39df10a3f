/* SPDX-License-Identifier: MIT */
/* The version of locktrace: the one definition `--version` prints (with the
 * git revision, when the build was made in a git checkout). */
#ifndef LOCKTRACE_VERSION_H
#define LOCKTRACE_VERSION_H

#define LT_VERSION "0.1.0"

#endif
