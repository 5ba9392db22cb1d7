// SPDX-License-Identifier: GPL-2.0
/*
 * hpbench: native A/B of regular vs non-temporal (movnti) stores for the
 * memory map of hotplugged memory, which, unlike a ZONE_DEVICE memory
 * map, is read and written again right after it is initialised: onlining
 * frees every page to the buddy allocator (__free_pages_core() clears
 * PageOffline and the reference count of every struct page).
 *
 * For each memory block (a BLOCK-KiB memory map, 2048 KiB for a 128 MiB
 * block of 4 KiB pages and 64-byte struct pages), fill the block's memory
 * map with a 64-byte image (cached 8-byte stores, or movnti + sfence),
 * then run the free pass over it: per 64-byte slot, read and write two
 * words (the page type and the reference count).
 *
 * Usage: hpbench [blocks] [block KiB] [runs]   (defaults 256 2048 9)
 * Prints the median time of each method over the runs (interleaved) for
 * the fill alone and for fill + free pass, and regular/movnti (>1: movnti
 * faster).  x86-64 only; runs natively, never meaningful under TCG.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "timing.h"

#define SLOT_WORDS 8	/* 64-byte struct page */

static void fill(uint64_t *dst, size_t words, const uint64_t *img, int nt)
{
	size_t i, j;

	if (!nt) {
		for (i = 0; i < words; i += SLOT_WORDS)
			for (j = 0; j < SLOT_WORDS; j++)
				((volatile uint64_t *)dst)[i + j] = img[j];
		return;
	}
	for (i = 0; i < words; i += SLOT_WORDS)
		for (j = 0; j < SLOT_WORDS; j++)
			asm volatile("movnti %1, %0" : "=m"(dst[i + j]) : "r"(img[j]));
	asm volatile("sfence" ::: "memory");
}

/* __ClearPageOffline() and set_page_count(0) of every struct page. */
static void free_pass(uint64_t *dst, size_t words)
{
	volatile uint64_t *d = dst;
	size_t i;

	for (i = 0; i < words; i += SLOT_WORDS) {
		d[i + 6] = d[i + 6] | 0xffffffffull;	/* page_type */
		d[i + 6] = d[i + 6] & ~(0xffffffffull << 32);	/* _refcount */
	}
}

int main(int argc, char **argv)
{
	size_t blocks = argc > 1 ? strtoul(argv[1], NULL, 0) : 256;
	size_t kib = argc > 2 ? strtoul(argv[2], NULL, 0) : 2048;
	int runs = argc > 3 ? atoi(argv[3]) : 9;
	size_t bwords = kib * 1024 / 8, b;
	uint64_t img[SLOT_WORDS] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	double *t[2][2];
	uint64_t *buf;
	int r, nt, pass;

	if (!blocks || !kib || kib % 64 || runs < 1 || runs > 1000) {
		fprintf(stderr, "usage: hpbench [blocks] [block KiB, a multiple of 64] [runs 1-1000]\n");
		return 1;
	}
	buf = mmap(NULL, blocks * kib * 1024, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (buf == MAP_FAILED) {
		perror("hpbench: mmap");
		return 1;
	}
	for (nt = 0; nt < 2; nt++)
		for (pass = 0; pass < 2; pass++)
			t[nt][pass] = calloc(runs, sizeof(double));
	/* Touch it once, so no run pays for page faults. */
	memset(buf, 0, blocks * kib * 1024);
	for (r = 0; r < runs; r++)
		for (pass = 0; pass < 2; pass++)
			for (nt = 0; nt < 2; nt++) {
				double t0 = now();

				for (b = 0; b < blocks; b++) {
					fill(buf + b * bwords, bwords, img, nt);
					if (pass)
						free_pass(buf + b * bwords, bwords);
				}
				t[nt][pass][r] = now() - t0;
			}
	printf("# hpbench %zu blocks of %zu KiB memory map, %d runs, medians\n",
	       blocks, kib, runs);
	printf("what,regular_ms,movnti_ms,regular_over_movnti\n");
	for (pass = 0; pass < 2; pass++) {
		double rg = median(t[0][pass], runs) * 1e3;
		double ntm = median(t[1][pass], runs) * 1e3;

		printf("%s,%.1f,%.1f,%.2f\n", pass ? "fill+free_pass" : "fill",
		       rg, ntm, rg / ntm);
	}
	return 0;
}
