// SPDX-License-Identifier: GPL-2.0
/*
 * ntbench: native A/B of regular vs non-temporal (movnti) stores for the
 * write-once copies of the ZONE_DEVICE memmap template path: copy a
 * SIZE-byte image to every SIZE-byte slot of a large DRAM buffer, the way
 * memmap_init_zone_device() writes struct pages, then sfence.
 *
 * Usage: ntbench [MiB] [runs]   (defaults 1600 MiB, 7 runs)
 * Prints, per image size, the median time of each method over the runs
 * (methods interleaved) and the ratio regular/non-temporal (>1: movnti
 * faster).  x86-64 only; runs natively, never meaningful under TCG.
 *
 *        ntbench --section [MiB] [runs]
 * Times each streamed section of the kernel's memmap template copy, the
 * part it runs with preemption disabled: 4096 64-byte images (256 KiB)
 * with movnti, then sfence, one section after the other over the buffer
 * (so that the stores go to memory, not cache).  Prints the number of
 * sections timed and their median, 99th percentile and maximum in us.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "timing.h"

static void fill_regular(uint64_t *dst, size_t words, const uint64_t *img,
			 size_t iw)
{
	size_t i, j;

	for (i = 0; i < words; i += iw)
		for (j = 0; j < iw; j++)
			((volatile uint64_t *)dst)[i + j] = img[j];
}

static void fill_nt(uint64_t *dst, size_t words, const uint64_t *img,
		    size_t iw)
{
	size_t i, j;

	for (i = 0; i < words; i += iw)
		for (j = 0; j < iw; j++)
			asm volatile("movnti %1, %0" : "=m"(dst[i + j]) : "r"(img[j]));
	asm volatile("sfence" ::: "memory");
}

#define SECTION_BYTES	(256 << 10)

static int sections(size_t mib, int runs)
{
	size_t bytes = mib << 20, n = bytes / SECTION_BYTES, i, k, total;
	uint64_t img[8];
	uint64_t *buf;
	double *t;
	int r;

	if (!n || runs < 1 || runs > 99) {
		fprintf(stderr, "usage: ntbench --section [MiB >= 1] [runs 1-99]\n");
		return 2;
	}
	buf = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	t = malloc(n * runs * sizeof(*t));
	if (buf == MAP_FAILED || !t) {
		perror("ntbench");
		return 1;
	}
	for (k = 0; k < 8; k++)
		img[k] = 0x0101010101010101ull * (k + 1);
	total = 0;
	for (r = 0; r < runs; r++) {
		for (i = 0; i < n; i++) {
			double t0 = now();

			fill_nt(buf + i * (SECTION_BYTES / 8), SECTION_BYTES / 8,
				img, 8);
			t[total++] = now() - t0;
		}
	}
	qsort(t, total, sizeof(double), cmp);
	printf("sections,median_us,p99_us,max_us\n");
	printf("%zu,%.1f,%.1f,%.1f\n", total, t[total / 2] * 1e6,
	       t[total * 99 / 100] * 1e6, t[total - 1] * 1e6);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--section"))
		return sections(argc > 2 ? strtoul(argv[2], NULL, 0) : 1600,
				argc > 3 ? atoi(argv[3]) : 7);

	size_t mib = argc > 1 ? strtoul(argv[1], NULL, 0) : 1600;
	int runs = argc > 2 ? atoi(argv[2]) : 7;
	static const size_t sizes[] = { 32, 56, 64, 80, 96, 128 };
	size_t bytes = mib << 20, s;
	uint64_t img[16];
	uint64_t *buf;
	int r, k;

	if (!mib || runs < 1 || runs > 99) {
		fprintf(stderr, "usage: ntbench [MiB] [runs 1-99]\n");
		return 2;
	}
	buf = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (buf == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	for (k = 0; k < 16; k++)
		img[k] = 0x0101010101010101ull * (k + 1);
	printf("size_bytes,regular_ms,movnti_ms,regular_over_movnti\n");
	for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		size_t iw = sizes[s] / 8, words = (bytes / sizes[s]) * iw;
		double reg[99], nt[99];

		for (r = 0; r < runs; r++) {
			double t0 = now();

			fill_regular(buf, words, img, iw);
			reg[r] = now() - t0;
			t0 = now();
			fill_nt(buf, words, img, iw);
			nt[r] = now() - t0;
		}
		qsort(reg, runs, sizeof(double), cmp);
		qsort(nt, runs, sizeof(double), cmp);
		printf("%zu,%.1f,%.1f,%.2f\n", sizes[s], reg[runs / 2] * 1e3,
		       nt[runs / 2] * 1e3, reg[runs / 2] / nt[runs / 2]);
	}
	return 0;
}
