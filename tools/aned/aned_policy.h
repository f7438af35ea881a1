/* SPDX-License-Identifier: MIT */
/*
 * aned's policy file: per user and group, the tier and the entitlements
 * (Documentation/accel/ane/broker.rst, "The policy file").
 *
 * Copyright (C) 2026 The ane authors
 */
#ifndef ANED_POLICY_H
#define ANED_POLICY_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum aned_tier {
	ANED_TIER_NONE = 0,		/* no rule: every method refused */
	ANED_TIER_RESTRICTED,
	ANED_TIER_UNRESTRICTED,
	ANED_TIER_PER_USER,
};

/* The broker entitlements of Table 27.8. */
#define ANED_ENT_BASELINE		0x01u	/* aned.private.allow */
#define ANED_ENT_ADAPTERS		0x02u	/* adapterWeight.allow */
#define ANED_ENT_MODEL_SHARE		0x04u	/* processModelShare.allow */
#define ANED_ENT_DIRECT_HANDOFF		0x08u	/* the direct-path exception */
#define ANED_ENT_AGGRESSIVE_POWER	0x10u	/* aggressivePowerSaving */
#define ANED_ENT_PURGE			0x20u	/* modelPurgeInAllPartitions */
/* keep kept surfaces resident under cache pressure (opt out of unwiring) */
#define ANED_ENT_NO_UNWIRE		0x40u
/* secondaryANECompilerServiceAccess.allow: the Compile method */
#define ANED_ENT_COMPILER		0x80u
#define ANED_ENT_ALL			0xffu

#define ANED_MAX_RULES			256

struct aned_rule {
	enum aned_tier tier;
	uint32_t ents;
};

struct aned_policy_entry {
	int kind;			/* 0 user, 1 group, 2 default */
	uint32_t id;
	struct aned_rule rule;
};

struct aned_policy {
	struct aned_policy_entry e[ANED_MAX_RULES];
	unsigned int n;
};

/* Parse @path; 0, or -1 with a message naming the line in @err. */
int aned_policy_load(const char *path, struct aned_policy *p, char *err,
		     size_t len);
/* Parse one text (the file's contents); the same. */
int aned_policy_parse(const char *text, const char *name, struct aned_policy *p,
		      char *err, size_t len);
/* The rule of a peer: its user's, else its first group's, else default. */
struct aned_rule aned_policy_lookup(const struct aned_policy *p, uid_t uid,
				    gid_t gid, const gid_t *groups, int n);

const char *aned_tier_name(enum aned_tier t);
const char *aned_ent_name(uint32_t ent);
uint32_t aned_tier_max_qos(enum aned_tier t);
unsigned int aned_tier_max_models(enum aned_tier t);
uint64_t aned_tier_max_image(enum aned_tier t, uint64_t max);

#endif /* ANED_POLICY_H */
