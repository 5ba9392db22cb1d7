// SPDX-License-Identifier: GPL-2.0
/*
 * Superseded by memmap-model.c, which follows the kernel's stores and loads
 * path by path; kept while the memmap-once cover letter quotes its result
 * (docs/results/native/memmap-passes.txt).
 *
 * memmap-passes: native model of how many times the memory map of ordinary
 * memory is walked between "uninitialised" and "on the buddy free lists"
 * (docs/design-memmap-once.md, issue 30).  The memory map of MEM GiB of
 * 4 KiB pages is an array of 64-byte struct pages (words: flags, lru.next,
 * lru.prev, mapping, index, private, _mapcount|_refcount, memcg_data), and
 * every MAX_ORDER block (1024 pages, two 512-page pageblocks) ends up on a
 * model free list, head marked buddy with its order.
 *
 * Methods, each over the whole map:
 *   one    the fused path: every struct page written once from a template
 *          in its final free state (8 word stores, lru patched to point to
 *          itself), then per MAX_ORDER block the head update (pageblock
 *          migratetype byte, private = order, page_type = buddy, list_add
 *          to the tail of a free list): what __free_one_page() leaves.
 *   two    __init_single_page()-like init (8 zeroing stores, flags
 *          read-modify-written twice, _refcount = 1, _mapcount = -1,
 *          lru = self) then a __free_pages_core()-like pass (clear
 *          PG_reserved in flags, _refcount = 0), then the head update.
 *   three  two, plus a free_pages_prepare()-like tail pass with page
 *          checks: load flags, _mapcount, _refcount, mapping, private,
 *          memcg_data, pp_magic (lru.next), and clear
 *          PAGE_FLAGS_CHECK_AT_PREP in flags.
 *   one_movnti (--movnti)  one, with movnti for the 8 template stores and
 *          an sfence before the head updates of each init span.
 * All stores but movnti are cached 8- or 4-byte volatile stores.
 *
 * Modes say how the kernel interleaves the passes:
 *   early     memmap_init() writes the whole map, then memblock_free_all()
 *             runs the free passes and head update block by block;
 *   hotplug   per 128 MiB memory block, the memory map of the block
 *             (move_pfn_range_to_zone()), then online_pages_range()
 *             block by block;
 *   deferred  per MAX_ORDER block, init then free (deferred init's
 *             deferred_init_memmap_chunk()).
 *
 * Usage: memmap-passes [--movnti] [--map-mib MiB] [--runs N] [memory GiB] [runs]
 *        (defaults: 256 GiB of memory, i.e. a 4 GiB memory map, 5 runs)
 * Prints, per mode, the median time of each method over the runs
 * (methods and modes interleaved) and two/one, three/one (>1: the fused
 * pass is faster).  x86-64 only; runs natively, never meaningful under TCG.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "timing.h"

#define SLOT_WORDS	8	/* 64-byte struct page */
#define MAX_ORDER	10
#define MAX_PAGES	(1ul << MAX_ORDER)
#define PB_PAGES	512ul	/* pageblock_nr_pages, 2 MiB pageblocks */
#define BLOCK_PAGES	32768ul	/* 128 MiB memory block */

/* Word and field offsets of the model struct page. */
#define W_FLAGS		0
#define W_LRU_NEXT	1
#define W_LRU_PREV	2
#define W_MAPPING	3
#define W_PRIVATE	5
#define W_COUNTS	6	/* _mapcount (low half) | _refcount (high half) */
#define W_MEMCG		7

#define PG_RESERVED	(1ull << 10)
#define CHECK_AT_PREP	((1ull << 26) - 1)	/* PAGEFLAGS_MASK-like */
#define LINKS		(0x0300000000000000ull | 0x00ffff0000000000ull)
#define PGTY_BUDDY	(0xf0u << 24)

enum { ONE, TWO, THREE, ONE_NT, NR_METHODS };
static const char *const method_name[] = { "one", "two", "three", "one_movnti" };
/* Per struct page, heads and pageblock bytes not counted. */
static const int stores[] = { 8, 16, 17, 8 }, loads[] = { 0, 3, 10, 0 };

enum { EARLY, HOTPLUG, DEFERRED, NR_MODES };
static const char *const mode_name[] = { "early", "hotplug", "deferred" };

static uint64_t list_head[2];	/* the model zone free list */
static uint8_t *pageblock_mt;	/* one byte per pageblock */
static volatile uint64_t sink;

static inline volatile uint32_t *mapcount(uint64_t *p)
{
	return (volatile uint32_t *)&p[W_COUNTS];
}

static inline volatile uint32_t *refcount(uint64_t *p)
{
	return (volatile uint32_t *)&p[W_COUNTS] + 1;
}

/*
 * The final state of a free tail page: what __free_one_page() leaves.  The
 * eight words are stored from registers, as the kernel's unrolled template
 * copy does (objdump of mm_init.o: eight stores per struct page).
 */
static void init_once(uint64_t *map, size_t first, size_t nr, int nt)
{
	const uint64_t links = LINKS, zero = 0, counts = 0xffffffffull;
	size_t i;

	for (i = first; i < first + nr; i++) {
		uint64_t *p = map + i * SLOT_WORDS;
		uint64_t self = (uint64_t)(uintptr_t)&p[W_LRU_NEXT];

		if (nt) {
#define NT(w, v) asm volatile("movnti %1, %0" : "=m"(p[w]) : "r"(v))
			NT(0, links); NT(1, self); NT(2, self); NT(3, zero);
			NT(4, zero); NT(5, zero); NT(6, counts); NT(7, zero);
#undef NT
			continue;
		}
		{
			volatile uint64_t *v = p;

			v[0] = links; v[1] = self; v[2] = self; v[3] = zero;
			v[4] = zero; v[5] = zero; v[6] = counts; v[7] = zero;
		}
	}
	if (nt)
		asm volatile("sfence" ::: "memory");
}

/* __init_single_page(): refcount 1, mapcount -1, lru pointing to itself. */
static void init_single(uint64_t *map, size_t first, size_t nr)
{
	size_t i, j;

	for (i = first; i < first + nr; i++) {
		volatile uint64_t *p = map + i * SLOT_WORDS;

		for (j = 0; j < SLOT_WORDS; j++)	/* mm_zero_struct_page() */
			p[j] = 0;
		p[W_FLAGS] = p[W_FLAGS] | LINKS;	/* set_page_links() */
		*refcount((uint64_t *)p) = 1;		/* init_page_count() */
		*mapcount((uint64_t *)p) = 0xffffffffu;
		p[W_FLAGS] = p[W_FLAGS] | 0;		/* page_cpupid_reset_last() */
		p[W_LRU_NEXT] = (uint64_t)(uintptr_t)&p[W_LRU_NEXT];
		p[W_LRU_PREV] = (uint64_t)(uintptr_t)&p[W_LRU_NEXT];
	}
}

/* __free_pages_core(): __ClearPageReserved(), set_page_count(0). */
static void free_core(uint64_t *map, size_t first, size_t nr)
{
	size_t i;

	for (i = first; i < first + nr; i++) {
		volatile uint64_t *p = map + i * SLOT_WORDS;

		p[W_FLAGS] = p[W_FLAGS] & ~PG_RESERVED;
		*refcount((uint64_t *)p) = 0;
	}
}

/* __free_pages_prepare() tails with page checks on. */
static void free_prepare(uint64_t *map, size_t first, size_t nr)
{
	uint64_t bad = 0;
	size_t i;

	for (i = first + 1; i < first + nr; i++) {
		volatile uint64_t *p = map + i * SLOT_WORDS;
		uint64_t f = p[W_FLAGS];

		bad += (*mapcount((uint64_t *)p) != 0xffffffffu) |
		       ((p[W_MAPPING] | *refcount((uint64_t *)p) | p[W_MEMCG] |
			 (f & PG_RESERVED) | p[W_PRIVATE]) != 0) |
		       (p[W_LRU_NEXT] == 0x40);	/* page_pool_page_is_pp() */
		p[W_FLAGS] = f & ~CHECK_AT_PREP;
	}
	sink += bad;
}

/* What free_one_page() does for a MAX_ORDER block: per pageblock head. */
static void free_block(uint64_t *map, size_t first)
{
	volatile uint64_t *h = map + first * SLOT_WORDS;
	volatile uint64_t *lh = list_head;
	volatile uint64_t *prev = (volatile uint64_t *)(uintptr_t)lh[1];
	size_t pb;

	for (pb = first; pb < first + MAX_PAGES; pb += PB_PAGES)
		sink += pageblock_mt[pb / PB_PAGES];	/* get_pfnblock_migratetype() */
	h[W_PRIVATE] = MAX_ORDER;			/* set_buddy_order() */
	*mapcount((uint64_t *)h) = PGTY_BUDDY;
	h[W_LRU_NEXT] = (uint64_t)(uintptr_t)lh;	/* list_add_tail() */
	h[W_LRU_PREV] = (uint64_t)(uintptr_t)prev;
	prev[0] = (uint64_t)(uintptr_t)&h[W_LRU_NEXT];
	lh[1] = (uint64_t)(uintptr_t)&h[W_LRU_NEXT];
}

static void set_pageblocks(size_t first, size_t nr)
{
	size_t pb;

	for (pb = first; pb < first + nr; pb += PB_PAGES)
		((volatile uint8_t *)pageblock_mt)[pb / PB_PAGES] = 1;	/* MOVABLE */
}

static void run(uint64_t *map, size_t pages, int mode, int method)
{
	size_t span = mode == EARLY ? pages : mode == HOTPLUG ? BLOCK_PAGES : MAX_PAGES;
	size_t s, b;

	list_head[0] = list_head[1] = (uint64_t)(uintptr_t)list_head;
	for (s = 0; s < pages; s += span) {
		size_t n = span < pages - s ? span : pages - s;

		if (method == ONE || method == ONE_NT)
			init_once(map, s, n, method == ONE_NT);
		else
			init_single(map, s, n);
		set_pageblocks(s, n);
		for (b = s; b < s + n; b += MAX_PAGES) {
			if (method == TWO || method == THREE)
				free_core(map, b, MAX_PAGES);
			if (method == THREE)
				free_prepare(map, b, MAX_PAGES);
			free_block(map, b);
		}
	}
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: memmap-passes [--movnti] [--map-mib MiB] [--runs N] [memory GiB] [runs]\n"
		"  memory GiB    memory the map describes (default 256: a 4 GiB map of\n"
		"                64-byte struct pages)\n"
		"  --map-mib M   size the memory map directly (M MiB of struct pages, a\n"
		"                multiple of 2; 1024 = 64 GiB of memory), instead of GiB\n"
		"  --movnti      also time the one-pass write with movnti + sfence\n"
		"  --runs N, runs  runs per method, 1-99 (default 5); medians are printed\n"
		"Methods one/two/three: 1, 2 or 3 passes over every struct page before\n"
		"its MAX_ORDER block is on the free list; modes early/hotplug/deferred:\n"
		"whole map, 128 MiB blocks or MAX_ORDER blocks initialised before the\n"
		"free passes.  x86-64 only; native runs, never meaningful under TCG.\n");
}

int main(int argc, char **argv)
{
	size_t map_mib = 0, gib = 256, pages, bytes;
	int runs = 5, nt = 0, pos = 0, r, m, k, nmeth;
	double *t[NR_MODES][NR_METHODS];
	uint64_t *map;

	for (k = 1; k < argc; k++) {
		if (!strcmp(argv[k], "--help") || !strcmp(argv[k], "-h")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(argv[k], "--movnti")) {
			nt = 1;
		} else if (!strcmp(argv[k], "--map-mib") && k + 1 < argc) {
			map_mib = strtoul(argv[++k], NULL, 0);
		} else if (!strcmp(argv[k], "--runs") && k + 1 < argc) {
			runs = atoi(argv[++k]);
		} else if (argv[k][0] != '-' && pos == 0) {
			gib = strtoul(argv[k], NULL, 0);
			pos++;
		} else if (argv[k][0] != '-' && pos == 1) {
			runs = atoi(argv[k]);
			pos++;
		} else {
			usage(stderr);
			return 2;
		}
	}
	if (map_mib && pos) {
		/* memory GiB and --map-mib both size the map: use --runs. */
		usage(stderr);
		return 2;
	}
	pages = map_mib ? map_mib * (1ul << 20) / 64 : gib * (1ul << 18);
	if (!pages || pages % BLOCK_PAGES || runs < 1 || runs > 99) {
		usage(stderr);
		return 2;
	}
	bytes = pages * 64;
	nmeth = nt ? NR_METHODS : ONE_NT;
	map = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	pageblock_mt = calloc(pages / PB_PAGES, 1);
	if (map == MAP_FAILED || !pageblock_mt) {
		perror("memmap-passes");
		return 1;
	}
	for (k = 0; k < NR_MODES; k++)
		for (m = 0; m < nmeth; m++)
			t[k][m] = calloc(runs, sizeof(double));
	/* Touch it once, so no run pays for page faults. */
	memset(map, 0, bytes);
	for (r = 0; r < runs; r++)
		for (k = 0; k < NR_MODES; k++)
			for (m = 0; m < nmeth; m++) {
				double t0 = now();

				run(map, pages, k, m);
				t[k][m][r] = now() - t0;
			}
	printf("# memmap-passes %zu MiB memory map (%zu struct pages, %zu GiB of memory), %d runs, medians\n",
	       bytes >> 20, pages, pages >> 18, runs);
	printf("# stores/loads per struct page:");
	for (m = 0; m < nmeth; m++)
		printf(" %s %d/%d", method_name[m], stores[m], loads[m]);
	printf("\n");
	printf("mode,one_ms,two_ms,three_ms,%stwo_over_one,three_over_one,one_ns_per_page\n",
	       nt ? "one_movnti_ms," : "");
	for (k = 0; k < NR_MODES; k++) {
		double v[NR_METHODS];

		for (m = 0; m < nmeth; m++)
			v[m] = median(t[k][m], runs) * 1e3;
		printf("%s,%.1f,%.1f,%.1f,", mode_name[k], v[ONE], v[TWO], v[THREE]);
		if (nt)
			printf("%.1f,", v[ONE_NT]);
		printf("%.2f,%.2f,%.2f\n", v[TWO] / v[ONE], v[THREE] / v[ONE],
		       v[ONE] * 1e6 / pages);
	}
	return 0;
}
