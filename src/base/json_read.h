/* SPDX-License-Identifier: MIT */
/* The JSON reader (json_read.c): stored snapshots, report input. */
#ifndef LOCKTRACE_JSON_READ_H
#define LOCKTRACE_JSON_READ_H

#include <stddef.h>
#include <stdint.h>

/* ---- JSON ---------------------------------------------------------------- */

enum rp_jtype { RPJ_NULL, RPJ_FALSE, RPJ_TRUE, RPJ_NUM, RPJ_STR, RPJ_ARR, RPJ_OBJ };

struct rp_json {
	enum rp_jtype type;
	double num;
	int64_t inum;           /* RPJ_NUM written as an integer: its exact value */
	int is_int;
	char *str;              /* RPJ_STR: decoded, NUL-terminated */
	size_t n;               /* RPJ_ARR / RPJ_OBJ: items */
	struct rp_json *items;
	char **keys;            /* RPJ_OBJ: parallel to items */
};

/* Parses text (not necessarily NUL-terminated).  NULL on a syntax error,
 * with what and where in err. */
struct rp_json *rp_json_parse(const char *text, size_t len, char *err, size_t errlen);
void rp_json_free(struct rp_json *j);
/* Member of an object, NULL if absent or j is not an object. */
const struct rp_json *rp_json_get(const struct rp_json *j, const char *key);
/* Conversions that tolerate absent or mistyped values. */
int rp_json_is_num(const struct rp_json *j);
double rp_json_num(const struct rp_json *j, double dflt);
/* An integer exactly (doubles lose nanoseconds of a realtime clock). */
int64_t rp_json_int(const struct rp_json *j, int64_t dflt);
const char *rp_json_str(const struct rp_json *j); /* NULL unless a string */
/* "0x..." strings (and plain numbers): 1 and *out, or 0. */
int rp_json_addr(const struct rp_json *j, uint64_t *out);
/* The same as the address, or 0 when absent or not one. */
uint64_t rp_json_addr0(const struct rp_json *j);
/* A malloc'd copy of a string value; NULL unless a string (or no memory). */
char *rp_json_strdup(const struct rp_json *j);

#endif
