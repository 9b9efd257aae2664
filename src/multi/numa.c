/* NUMA placement of a multi-device plan's host memory (numa.h). */
#define _GNU_SOURCE /* sched_getaffinity, cpu_set_t */
#include <ctype.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/gateway.h"
#include "cuda/multi/multi_cuda.h"
#include "multi/numa.h"

_Static_assert(sizeof(cpu_set_t) <= sizeof(((spx__numa_saved *)0)->cpus), "cpu_set_t fits");

/* The first line of a sysfs file, or "" (buf of len bytes). */
static void read_line(const char *path, char *buf, size_t len)
{
    buf[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f) return;
    if (!fgets(buf, (int)len, f)) buf[0] = '\0';
    fclose(f);
}

static void set_bit(unsigned char *bits, long c) { bits[c / 8] |= (unsigned char)(1u << (c % 8)); }

int spx__numa_parse_cpulist(const char *list, unsigned char *bits)
{
    memset(bits, 0, SPX__NUMA_MAX_CPUS / 8);
    const char *p = list;
    while (*p && *p != '\n') {
        char *end;
        if (!isdigit((unsigned char)*p)) return -1;
        long lo = strtol(p, &end, 10), hi = lo;
        p = end;
        if (*p == '-') {
            if (!isdigit((unsigned char)p[1])) return -1;
            hi = strtol(p + 1, &end, 10);
            p = end;
        }
        if (lo > hi || hi >= SPX__NUMA_MAX_CPUS) return -1;
        for (long c = lo; c <= hi; c++) set_bit(bits, c);
        if (*p == ',') p++;
        else if (*p && *p != '\n') return -1;
    }
    return 0;
}

int spx__numa_nodes(void)
{
    char line[256];
    unsigned char bits[SPX__NUMA_MAX_CPUS / 8];
    read_line("/sys/devices/system/node/online", line, sizeof line);
    if (!line[0] || spx__numa_parse_cpulist(line, bits) != 0) return 1;
    int n = 0;
    for (int b = 0; b < SPX__NUMA_MAX_CPUS; b++) n += (bits[b / 8] >> (b % 8)) & 1;
    return n > 0 ? n : 1;
}

int spx__numa_node_of_gpu(int device)
{
    char id[32], path[96], line[32];
    if (spx__cuda_pci_bus_id(device, id, (int)sizeof id) != SPX_OK) return -1;
    for (char *c = id; *c; c++) *c = (char)tolower((unsigned char)*c);
    snprintf(path, sizeof path, "/sys/bus/pci/devices/%s/numa_node", id);
    read_line(path, line, sizeof line);
    if (!isdigit((unsigned char)line[0])) return -1; /* "-1": the platform does not say */
    return atoi(line);
}

int spx__numa_node_of_part(int device, int i, int n)
{
    int nodes = spx__numa_nodes();
    if (nodes < 2) return -1;
    if (device >= 0) return spx__numa_node_of_gpu(device);
    return (int)((long)i * nodes / (n > 0 ? n : 1));
}

void spx__numa_enter(int node, spx__numa_saved *saved)
{
    char path[96], line[4096];
    cpu_set_t old, want;
    unsigned char bits[SPX__NUMA_MAX_CPUS / 8];
    saved->bound = 0;
    if (node < 0) return;
    snprintf(path, sizeof path, "/sys/devices/system/node/node%d/cpulist", node);
    read_line(path, line, sizeof line);
    if (!line[0] || spx__numa_parse_cpulist(line, bits) != 0) return;
    if (sched_getaffinity(0, sizeof old, &old) != 0) return;
    CPU_ZERO(&want);
    for (int c = 0; c < SPX__NUMA_MAX_CPUS && c < CPU_SETSIZE; c++)
        if (((bits[c / 8] >> (c % 8)) & 1) && CPU_ISSET(c, &old)) CPU_SET(c, &want);
    if (CPU_COUNT(&want) == 0 || sched_setaffinity(0, sizeof want, &want) != 0) return;
    memcpy(saved->cpus, &old, sizeof old);
    saved->bound = 1;
}

void spx__numa_leave(const spx__numa_saved *saved)
{
    cpu_set_t old;
    if (!saved->bound) return;
    memcpy(&old, saved->cpus, sizeof old);
    sched_setaffinity(0, sizeof old, &old);
}
