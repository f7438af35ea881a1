// SPDX-License-Identifier: MIT
/*
 * aned's policy file (tools/aned/aned_policy.c,
 * Documentation/accel/ane/broker.rst): rules parsed, each error naming its
 * line, the lookup order user > group > default, and the tiers' bounds.
 *
 * Copyright (C) 2026 The ane authors
 */

#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "libane.h"
#include "tools/aned/aned_policy.c"

static struct aned_policy pol;
static char err[256];

static int parse(const char *text)
{
	err[0] = '\0';
	return aned_policy_parse(text, "p", &pol, err, sizeof(err));
}

static void rules_parse_and_resolve_in_order(void)
{
	gid_t groups[2] = { 50, 60 };
	struct aned_rule r;

	T_EQ(parse("# comment\n\n"
		   "default tier=restricted allow=baseline\n"
		   "group 60 tier=per-user allow=baseline,model-share   # trailing\n"
		   "group 50 tier=unrestricted allow=baseline,adapters,direct-hand-off\n"
		   "user 1000 tier=unrestricted allow=baseline,purge,aggressive-power\n"), 0);
	T_EQ(pol.n, 4);
	r = aned_policy_lookup(&pol, 1000, 60, groups, 2);
	T_EQ(r.tier, ANED_TIER_UNRESTRICTED);
	T_EQ(r.ents, ANED_ENT_BASELINE | ANED_ENT_PURGE | ANED_ENT_AGGRESSIVE_POWER);
	/* The first group rule in file order among the peer's groups. */
	r = aned_policy_lookup(&pol, 1001, 7, groups, 2);
	T_EQ(r.tier, ANED_TIER_PER_USER);
	r = aned_policy_lookup(&pol, 1001, 50, NULL, 0);
	T_EQ(r.tier, ANED_TIER_UNRESTRICTED);
	T_EQ(r.ents, ANED_ENT_BASELINE | ANED_ENT_ADAPTERS | ANED_ENT_DIRECT_HANDOFF);
	r = aned_policy_lookup(&pol, 1001, 7, NULL, 0);
	T_EQ(r.tier, ANED_TIER_RESTRICTED);
	T_EQ(r.ents, ANED_ENT_BASELINE);
	/* No default: no rule, tier none. */
	T_EQ(parse("user 5 tier=per-user allow=baseline\n"), 0);
	r = aned_policy_lookup(&pol, 6, 6, NULL, 0);
	T_EQ(r.tier, ANED_TIER_NONE);
	T_EQ(r.ents, 0);
	T_EQ(parse("user root tier=unrestricted"), 0);
	T_EQ(pol.e[0].id, 0);
	T_EQ(pol.e[0].rule.ents, 0);
	/* The residency and compiler entitlements; a restricted compiler. */
	T_EQ(parse("user 7 tier=unrestricted allow=baseline,no-unwire,compiler-service\n"
		   "user 8 tier=restricted allow=baseline,compiler-service\n"), 0);
	r = aned_policy_lookup(&pol, 7, 7, NULL, 0);
	T_EQ(r.ents, ANED_ENT_BASELINE | ANED_ENT_NO_UNWIRE | ANED_ENT_COMPILER);
	r = aned_policy_lookup(&pol, 8, 8, NULL, 0);
	T_EQ(r.ents, ANED_ENT_BASELINE | ANED_ENT_COMPILER);
	T_CHECK(!strcmp(aned_ent_name(ANED_ENT_COMPILER), "compiler-service") &&
		!strcmp(aned_ent_name(ANED_ENT_NO_UNWIRE), "no-unwire"), "entitlement names");
}

static void errors_name_the_line(void)
{
	static const struct { const char *text, *msg; } bad[] = {
		{ "default allow=baseline\n", "p:1: no tier=" },
		{ "\nuser 1 tier=gold\n", "p:2: tier 'gold'" },
		{ "user 1 tier=restricted allow=baseline,wings\n", "p:1: allow: unknown entitlement 'wings'" },
		{ "user 1 tier=restricted allow=direct-hand-off\n", "p:1: the restricted tier" },
		{ "user 1 tier=restricted allow=purge\n", "p:1: the restricted tier" },
		{ "user 1 tier=restricted allow=no-unwire\n", "p:1: the restricted tier" },
		{ "user no-such-user-x tier=restricted\n", "p:1: user: no such user" },
		{ "group no-such-group-x tier=restricted\n", "p:1: group: no such group" },
		{ "user\n", "p:1: user: no such user" },
		{ "person 1 tier=restricted\n", "p:1: 'person'" },
		{ "user 1 tier=restricted colour=blue\n", "p:1: 'colour=blue'" },
		{ "user 1 a b c d e f g h\n", "p:1: too many words" },
	};
	char longline[700];
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		T_EQ(parse(bad[i].text), -1);
		T_CHECK(!strncmp(err, bad[i].msg, strlen(bad[i].msg)), "%u: \"%s\", want \"%s...\"",
			i, err, bad[i].msg);
	}
	memset(longline, 'x', sizeof(longline) - 1);
	longline[sizeof(longline) - 1] = '\0';
	T_EQ(parse(longline), -1);
	T_CHECK(strstr(err, "longer than"), "%s", err);
}

static void too_many_rules_are_refused(void)
{
	static char text[ANED_MAX_RULES * 40 + 64];
	size_t n = 0;
	unsigned int i;

	for (i = 0; i <= ANED_MAX_RULES; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "user %u tier=restricted\n", i);
	T_EQ(parse(text), -1);
	T_CHECK(strstr(err, "more than"), "%s", err);
	T_EQ(aned_policy_load("/nonexistent/aned.conf", &pol, err, sizeof(err)), -1);
	T_CHECK(strstr(err, "/nonexistent/aned.conf"), "%s", err);
}

static void tiers_bound_qos_models_and_images(void)
{
	T_EQ(aned_tier_max_qos(ANED_TIER_RESTRICTED), ANE_QOS_DEFAULT);
	T_EQ(aned_tier_max_qos(ANED_TIER_PER_USER), ANE_QOS_USER_INTERACTIVE);
	T_EQ(aned_tier_max_qos(ANED_TIER_UNRESTRICTED), ANE_QOS_REALTIME);
	T_EQ(aned_tier_max_qos(ANED_TIER_NONE), ANE_QOS_DEFAULT);
	T_EQ(aned_tier_max_models(ANED_TIER_RESTRICTED), 8);
	T_EQ(aned_tier_max_models(ANED_TIER_UNRESTRICTED), 64);
	T_EQ(aned_tier_max_image(ANED_TIER_RESTRICTED, 64ull << 20), 16ull << 20);
	T_EQ(aned_tier_max_image(ANED_TIER_RESTRICTED, 1ull << 20), 1ull << 20);
	T_EQ(aned_tier_max_image(ANED_TIER_PER_USER, 64ull << 20), 64ull << 20);
	T_CHECK(!strcmp(aned_ent_name(ANED_ENT_MODEL_SHARE), "model-share"), "name");
	T_CHECK(!strcmp(aned_ent_name(3), "?"), "two bits are no name");
	T_CHECK(!strcmp(aned_tier_name(ANED_TIER_PER_USER), "per-user"), "name");
}

int main(void)
{
	T_RUN(rules_parse_and_resolve_in_order);
	T_RUN(errors_name_the_line);
	T_RUN(too_many_rules_are_refused);
	T_RUN(tiers_bound_qos_models_and_images);
	return t_summary("aned-policy");
}
