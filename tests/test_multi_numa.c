/* NUMA placement of multi-device plans (src/multi/numa.h): the sysfs CPU
 * list parser (ranges, singles, a trailing newline; malformed lists and CPUs
 * past the limit refused), binding a thread to a node and giving its CPU set
 * back, the node of each part (-1 on a one-node host, a node in range
 * otherwise; CPU parts spread in blocks), and the part's node in
 * spx_multi_part_info. */
#define _GNU_SOURCE /* sched_getaffinity */
#include <sched.h>
#include <string.h>

#include "common.h"
#include "multi/numa.h"

static int has(const unsigned char *bits, int c) { return (bits[c / 8] >> (c % 8)) & 1; }

static int count(const unsigned char *bits)
{
    int n = 0;
    for (int c = 0; c < SPX__NUMA_MAX_CPUS; c++) n += has(bits, c);
    return n;
}

static void test_parse(void)
{
    unsigned char b[SPX__NUMA_MAX_CPUS / 8];
    CHECK(spx__numa_parse_cpulist("0-3,8,10-11\n", b) == 0);
    CHECK(count(b) == 7 && has(b, 0) && has(b, 3) && !has(b, 4) && has(b, 8) && has(b, 11));
    CHECK(spx__numa_parse_cpulist("5", b) == 0 && count(b) == 1 && has(b, 5));
    CHECK(spx__numa_parse_cpulist("", b) == 0 && count(b) == 0);
    CHECK(spx__numa_parse_cpulist("1023", b) == 0 && has(b, 1023));
    static const char *bad[] = {"1024", "3-1", "a", "1-", "1,,2", "-1", "0-3x", "2 3"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (!CHECK(spx__numa_parse_cpulist(bad[i], b) == -1)) fprintf(stderr, "  accepted '%s'\n", bad[i]);
}

static void test_bind(void)
{
    cpu_set_t before, during, after;
    spx__numa_saved s;
    CHECK(sched_getaffinity(0, sizeof before, &before) == 0);
    spx__numa_enter(-1, &s);
    CHECK(s.bound == 0);
    spx__numa_enter(0, &s); /* node 0 exists wherever sysfs has nodes */
    CHECK(sched_getaffinity(0, sizeof during, &during) == 0);
    CHECK(CPU_COUNT(&during) >= 1);
    spx__numa_leave(&s);
    CHECK(sched_getaffinity(0, sizeof after, &after) == 0);
    CHECK(CPU_EQUAL(&before, &after));
    spx__numa_enter(100000, &s); /* no such node: not bound */
    CHECK(s.bound == 0);
}

static void test_nodes(void)
{
    int nodes = spx__numa_nodes();
    CHECK(nodes >= 1);
    for (int i = 0; i < 6; i++) {
        int n = spx__numa_node_of_part(SPX_MULTI_CPU, i, 6);
        CHECK(nodes == 1 ? n == -1 : (n >= 0 && n < nodes && n == i * nodes / 6));
    }
    spx_matrix *A = NULL;
    if (!CHECK_STATUS(spx_generate("lap2d5:30", &A), SPX_OK)) return;
    spx_multi_opts m = spx_multi_opts_default();
    m.parts = 3;
    spx_multi_plan *P = NULL;
    if (CHECK_STATUS(spx_multi_plan_create(A, NULL, &m, &P), SPX_OK)) {
        for (int i = 0; i < 3; i++) {
            spx_multi_part_info in;
            CHECK_STATUS(spx_multi_plan_part(P, i, &in), SPX_OK);
            CHECK(in.numa_node == spx__numa_node_of_part(SPX_MULTI_CPU, i, 3));
        }
    }
    spx_multi_plan_destroy(P);
    spx_matrix_destroy(A);
}

int main(void)
{
    test_parse();
    test_bind();
    test_nodes();
    return spx_test_finish();
}
