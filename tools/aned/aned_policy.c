// SPDX-License-Identifier: MIT
/*
 * aned's policy file.  One rule a line:
 *
 *   user  NAME|UID    tier=TIER allow=ENT[,ENT...]
 *   group NAME|GID    tier=TIER allow=ENT[,ENT...]
 *   default           tier=TIER allow=ENT[,ENT...]
 *
 * '#' starts a comment.  TIER: restricted, unrestricted, per-user.  ENT:
 * baseline, adapters, model-share, direct-hand-off, aggressive-power,
 * purge, no-unwire, compiler-service.  Documentation/accel/ane/broker.rst.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libane.h"
#include "aned_policy.h"

static const char *const tier_names[] = {
	[ANED_TIER_NONE] = "none",
	[ANED_TIER_RESTRICTED] = "restricted",
	[ANED_TIER_UNRESTRICTED] = "unrestricted",
	[ANED_TIER_PER_USER] = "per-user",
};

static const char *const ent_names[] = {
	"baseline", "adapters", "model-share", "direct-hand-off",
	"aggressive-power", "purge", "no-unwire", "compiler-service",
};

const char *aned_tier_name(enum aned_tier t)
{
	return (unsigned int)t <= ANED_TIER_PER_USER ? tier_names[t] : "?";
}

const char *aned_ent_name(uint32_t ent)
{
	unsigned int i;

	for (i = 0; i < sizeof(ent_names) / sizeof(ent_names[0]); i++)
		if (ent == 1u << i)
			return ent_names[i];
	return "?";
}

uint32_t aned_tier_max_qos(enum aned_tier t)
{
	switch (t) {
	case ANED_TIER_UNRESTRICTED:
		return ANE_QOS_REALTIME;
	case ANED_TIER_PER_USER:
		return ANE_QOS_USER_INTERACTIVE;
	default:
		return ANE_QOS_DEFAULT;
	}
}

unsigned int aned_tier_max_models(enum aned_tier t)
{
	return t == ANED_TIER_RESTRICTED ? 8 : 64;
}

uint64_t aned_tier_max_image(enum aned_tier t, uint64_t max)
{
	if (t == ANED_TIER_RESTRICTED && max > (16ull << 20))
		return 16ull << 20;
	return max;
}

static int fail(char *err, size_t len, const char *name, unsigned int line,
		const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static int fail(char *err, size_t len, const char *name, unsigned int line,
		const char *fmt, ...)
{
	int n = snprintf(err, len, "%s:%u: ", name, line);
	va_list ap;

	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < len)
		vsnprintf(err + n, len - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

static int parse_id(const char *s, int group, uint32_t *id)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (*s && !*end && !errno && v < 0xffffffffu) {
		*id = (uint32_t)v;
		return 0;
	}
	if (group) {
		struct group *g = getgrnam(s);

		if (g) {
			*id = g->gr_gid;
			return 0;
		}
	} else {
		struct passwd *pw = getpwnam(s);

		if (pw) {
			*id = pw->pw_uid;
			return 0;
		}
	}
	return -1;
}

/* The entitlements of @s (it is cut up); NULL, or the unknown one. */
static const char *parse_ents(char *s, uint32_t *ents)
{
	char *tok, *save = NULL;
	unsigned int i;

	*ents = 0;
	for (tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < sizeof(ent_names) / sizeof(ent_names[0]); i++)
			if (!strcmp(tok, ent_names[i]))
				break;
		if (i == sizeof(ent_names) / sizeof(ent_names[0]))
			return tok;
		*ents |= 1u << i;
	}
	return NULL;
}

int aned_policy_parse(const char *text, const char *name, struct aned_policy *p,
		      char *err, size_t len)
{
	unsigned int lineno = 0;
	const char *l = text;

	p->n = 0;
	while (*l) {
		struct aned_policy_entry e = { 0 };
		char line[512], *w[8], *save = NULL, *c;
		const char *nl = strchr(l, '\n');
		size_t n = nl ? (size_t)(nl - l) : strlen(l);
		unsigned int nw = 0, i;
		int have_tier = 0;

		lineno++;
		if (n >= sizeof(line))
			return fail(err, len, name, lineno, "line longer than %zu bytes",
				    sizeof(line) - 1);
		memcpy(line, l, n);
		line[n] = '\0';
		l += n + (nl ? 1 : 0);
		c = strchr(line, '#');
		if (c)
			*c = '\0';
		for (c = strtok_r(line, " \t\r", &save); c; c = strtok_r(NULL, " \t\r", &save)) {
			if (nw == 8)
				return fail(err, len, name, lineno, "too many words");
			w[nw++] = c;
		}
		if (!nw)
			continue;
		if (!strcmp(w[0], "default")) {
			e.kind = 2;
			i = 1;
		} else if (!strcmp(w[0], "user") || !strcmp(w[0], "group")) {
			e.kind = w[0][0] == 'g';
			if (nw < 2 || parse_id(w[1], e.kind, &e.id))
				return fail(err, len, name, lineno, "%s: no such %s '%s'", w[0],
					    w[0], nw < 2 ? "" : w[1]);
			i = 2;
		} else {
			return fail(err, len, name, lineno,
				    "'%s': a rule starts with user, group or default", w[0]);
		}
		for (; i < nw; i++) {
			if (!strncmp(w[i], "tier=", 5)) {
				unsigned int t;

				for (t = ANED_TIER_RESTRICTED; t <= ANED_TIER_PER_USER; t++)
					if (!strcmp(w[i] + 5, tier_names[t]))
						break;
				if (t > ANED_TIER_PER_USER)
					return fail(err, len, name, lineno,
						    "tier '%s': restricted, unrestricted or per-user",
						    w[i] + 5);
				e.rule.tier = (enum aned_tier)t;
				have_tier = 1;
			} else if (!strncmp(w[i], "allow=", 6)) {
				const char *bad = parse_ents(w[i] + 6, &e.rule.ents);

				if (bad)
					return fail(err, len, name, lineno,
						    "allow: unknown entitlement '%s' (baseline, adapters, model-share, direct-hand-off, aggressive-power, purge, no-unwire, compiler-service)",
						    bad);
			} else {
				return fail(err, len, name, lineno, "'%s': tier= or allow=", w[i]);
			}
		}
		if (!have_tier)
			return fail(err, len, name, lineno, "no tier=");
		if (e.rule.tier == ANED_TIER_RESTRICTED &&
		    (e.rule.ents & (ANED_ENT_DIRECT_HANDOFF | ANED_ENT_PURGE |
				    ANED_ENT_NO_UNWIRE)))
			return fail(err, len, name, lineno,
				    "the restricted tier cannot have direct-hand-off, purge or no-unwire");
		if (p->n == ANED_MAX_RULES)
			return fail(err, len, name, lineno, "more than %d rules", ANED_MAX_RULES);
		p->e[p->n++] = e;
	}
	return 0;
}

int aned_policy_load(const char *path, struct aned_policy *p, char *err, size_t len)
{
	char *buf;
	size_t n;
	FILE *f;
	int ret;

	f = fopen(path, "re");
	if (!f) {
		snprintf(err, len, "%s: %s", path, strerror(errno));
		return -1;
	}
	buf = calloc(1, 1 << 20);
	if (!buf) {
		fclose(f);
		snprintf(err, len, "%s: out of memory", path);
		return -1;
	}
	n = fread(buf, 1, (1 << 20) - 1, f);
	fclose(f);
	if (n == (1 << 20) - 1) {
		free(buf);
		snprintf(err, len, "%s: larger than 1 MiB", path);
		return -1;
	}
	ret = aned_policy_parse(buf, path, p, err, len);
	free(buf);
	return ret;
}

struct aned_rule aned_policy_lookup(const struct aned_policy *p, uid_t uid,
				    gid_t gid, const gid_t *groups, int n)
{
	struct aned_rule none = { ANED_TIER_NONE, 0 };
	unsigned int i;
	int k;

	for (i = 0; i < p->n; i++)
		if (p->e[i].kind == 0 && p->e[i].id == uid)
			return p->e[i].rule;
	for (i = 0; i < p->n; i++) {
		if (p->e[i].kind != 1)
			continue;
		if (p->e[i].id == gid)
			return p->e[i].rule;
		for (k = 0; k < n; k++)
			if (p->e[i].id == groups[k])
				return p->e[i].rule;
	}
	for (i = 0; i < p->n; i++)
		if (p->e[i].kind == 2)
			return p->e[i].rule;
	return none;
}
