// SPDX-License-Identifier: MIT
/*
 * ane-bench: DART map and unmap of a 16 KB page against a userspace first
 * touch of the same memory, and the page tables of a fully mapped context.
 *
 * Copyright (C) 2026 The ane authors
 */

#include "bench.h"

/* DeviceOpen of the direct path through libane: it names what failed. */
static int dp_open(struct dp *c, const char *node)
{
	char err[512];

	if (ane_open(node, ANE_KIND_DIRECT, &c->dev, err, sizeof(err))) {
		fprintf(stderr, "ane-bench: %s\n", err);
		return -1;
	}
	c->fd = ane_fd(c->dev);
	c->token = ane_handshake(c->dev)->token;
	return 0;
}

static uint32_t surface(int fd, uint64_t size)
{
	struct drm_ane_surface_create sc;

	memset(&sc, 0, sizeof(sc));
	sc.size = size;
	return ioctl(fd, DRM_IOCTL_ANE_SURFACE_CREATE, &sc) < 0 ? 0 : sc.handle;
}

int map(struct dp *c, uint32_t handle, uint64_t *iova)
{
	static struct drm_ane_memory_map mr;

	memset(&mr, 0, sizeof(mr));
	mr.token = c->token;
	mr.in.num_surfaces = 1;
	mr.in.direction = 3;
	mr.in.surfaces[0].handle = handle;
	mr.in.surfaces[0].usage = 8;
	if (ioctl(c->fd, DRM_IOCTL_ANE_DP_MEMORY_MAP, &mr) < 0)
		return -1;
	*iova = mr.iova;
	return 0;
}

int unmap(struct dp *c, uint64_t iova)
{
	static struct drm_ane_memory_unmap ur;

	memset(&ur, 0, sizeof(ur));
	ur.in.iova = iova;
	return ioctl(c->fd, DRM_IOCTL_ANE_DP_MEMORY_UNMAP, &ur);
}

/* Seconds to first-touch @bytes of fresh anonymous memory, page by page. */
static double first_touch(uint64_t bytes)
{
	long pg = sysconf(_SC_PAGESIZE);
	volatile uint8_t *p;
	double t0, t;
	uint64_t i;

	p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -1;
	t0 = now_s();
	for (i = 0; i < bytes; i += (uint64_t)pg)
		p[i] = 1;
	t = now_s() - t0;
	munmap((void *)p, bytes);
	return t;
}

/* Page-table bytes of the context with @pages mapped, from debugfs. */
static long long table_bytes(const char *node, unsigned long long pages)
{
	char path[512], link[256], line[512], *dev;
	unsigned long long p, t;
	long long found = -1;
	FILE *f;
	ssize_t n;

	snprintf(path, sizeof(path), "/sys/class/accel/%s/device", strrchr(node, '/') + 1);
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return -1;
	link[n] = 0;
	dev = strrchr(link, '/') ? strrchr(link, '/') + 1 : link;
	snprintf(path, sizeof(path), "/sys/kernel/debug/accel/%s/dart", dev);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *s = strstr(line, " pages ");

		if (strncmp(line, "ctx ", 4) || !s)
			continue;
		if (sscanf(s, " pages %llu tables %llu", &p, &t) == 2 && p == pages)
			found = (long long)t;
	}
	fclose(f);
	return found;
}

int bench_dart(const char *node)
{
	const uint64_t size = 256 * MIB, pages = size / PAGE16K;
	const int iters = 8;
	double t0, t_map = 0, t_unmap = 0, t_touch = 0, per_page, base_page;
	uint64_t iova, iovas[14];
	uint32_t big, last;
	long long tables;
	struct dp c;
	int i;

	if (dp_open(&c, node))
		return 1;
	big = surface(c.fd, size);
	if (!big)
		return die("SURFACE_CREATE 256 MiB");

	for (i = 0; i < iters; i++) {
		double t;

		t0 = now_s();
		if (map(&c, big, &iova))
			return die("MemoryMapRequest 256 MiB");
		t_map += now_s() - t0;
		t0 = now_s();
		if (unmap(&c, iova))
			return die("MemoryUnMapRequest");
		t_unmap += now_s() - t0;
		t = first_touch(size);
		if (t < 0)
			return die("mmap baseline");
		t_touch += t;
	}
	per_page = (t_map + t_unmap) / iters / (double)pages;
	base_page = t_touch / iters / (double)pages;

	printf("dart: map + unmap of 256 MiB (%" PRIu64 " pages of 16 KB), %d rounds\n",
	       pages, iters);
	printf("  map              %8.3f ms   %6.2f GB/s\n", t_map / iters * 1e3,
	       (double)size / (t_map / iters) / 1e9);
	printf("  unmap            %8.3f ms   %6.2f GB/s\n", t_unmap / iters * 1e3,
	       (double)size / (t_unmap / iters) / 1e9);
	printf("  map+unmap/page   %8.1f ns\n", per_page * 1e9);
	printf("  baseline: first-touch of 16 KB from userspace %8.1f ns\n", base_page * 1e9);
	json_num("map_ms", t_map / iters * 1e3);
	json_num("unmap_ms", t_unmap / iters * 1e3);
	json_num("map_unmap_per_page_ns", per_page * 1e9);
	json_num("first_touch_per_page_ns", base_page * 1e9);
	printf("  ratio            %8.3f   (target <= 0.25: %s)\n", per_page / base_page,
	       json_target("map_unmap_vs_first_touch", per_page / base_page, 0.25) ?
	       "met" : "MISSED");

	/* Fill the aperture: 13 x 256 MiB + (256 MiB - 16 KB) = 3.5 GiB - 16 KB. */
	last = surface(c.fd, size - PAGE16K);
	if (!last) {
		/*
		 * 512 MiB of surfaces in one client: above its memory limit
		 * (mem_client_mb, by default three eighths of RAM) and the
		 * engine's (mem_device_mb, half of RAM) on a machine of 1 GiB,
		 * the VM's default.
		 */
		if (errno == EDQUOT || errno == ENOMEM) {
			fprintf(stderr,
				"ane-bench: dart: the fully mapped context needs 512 MiB of surfaces in one client, above %s (%s): give the machine 2 GiB (tools/vm/ane-vm --mem 2048), or load ane with mem_client_mb=600 mem_device_mb=600\n",
				errno == EDQUOT ? "this client's memory limit" :
				"the engine's memory limit or the free memory",
				ane_errno_name(errno));
			return 1;
		}
		return die("SURFACE_CREATE 256 MiB - 16 KB (fill)");
	}
	for (i = 0; i < 13; i++)
		if (map(&c, big, &iovas[i]))
			return die("MemoryMapRequest (fill)");
	if (map(&c, last, &iovas[13]))
		return die("MemoryMapRequest (fill)");
	tables = table_bytes(node, 0xe0000000ull / PAGE16K - 1);
	printf("dart: fully mapped 3.5 GiB context\n");
	if (tables < 0) {
		printf("  page tables      unknown (debugfs not mounted?)\n");
	} else {
		printf("  page tables      %8.3f MiB (leaf words alone %.3f MiB)\n",
		       (double)tables / MIB, (double)(0xe0000000ull / PAGE16K * 8) / MIB);
		printf("  target           <= 1.8 MiB: %s\n",
		       json_target("full_context_tables_mib", (double)tables / MIB, 1.8) ?
		       "met" : "MISSED");
	}
	for (i = 0; i < 14; i++)
		unmap(&c, iovas[i]);
	ane_close(c.dev);
	return 0;
}
