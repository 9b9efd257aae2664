/* NUMA placement of a multi-device plan's host memory (MSREP section 4.2):
 * on a host of several NUMA nodes, each part's host arrays (its local
 * offsets, a CPU format's layout, the staging of a GPU part's upload) live on
 * the node of its device: a GPU part's on its GPU's node, CPU parts spread
 * over the nodes in contiguous blocks of parts. Linux places a page on the
 * node of the CPU that first writes it, so the part's thread runs on its
 * node's CPUs while it makes the part (and, for a CPU part, while it
 * multiplies), then gets its own CPU set back. Nodes and their CPUs come from
 * /sys/devices/system/node, a GPU's node from its PCI device's numa_node;
 * no library is needed. On a one-node host nothing is bound. */
#ifndef SPX_MULTI_NUMA_H
#define SPX_MULTI_NUMA_H

#define SPX__NUMA_MAX_CPUS 1024

/* A thread's CPU set, kept while it is bound to a node. */
typedef struct spx__numa_saved {
    unsigned char cpus[SPX__NUMA_MAX_CPUS / 8];
    int bound; /* 1: the thread was bound and gets cpus back */
} spx__numa_saved;

/* Online NUMA nodes (1 when the system does not say). */
int spx__numa_nodes(void);

/* The node of CUDA device `device`, -1 when unknown. */
int spx__numa_node_of_gpu(int device);

/* The node of part i of n: a GPU part's GPU's node, a CPU part's block of
 * parts; -1 on a one-node host or when unknown. */
int spx__numa_node_of_part(int device, int i, int n);

/* Parse a sysfs CPU list ("0-3,8,10-11\n") into a bit array of
 * SPX__NUMA_MAX_CPUS bits; 0 on success, -1 when malformed or naming a CPU
 * past SPX__NUMA_MAX_CPUS. */
int spx__numa_parse_cpulist(const char *list, unsigned char *bits);

/* Run the calling thread on node's CPUs (node >= 0), its former set kept in
 * *saved (saved->bound says whether it was bound); spx__numa_leave gives the
 * set back when it was. */
void spx__numa_enter(int node, spx__numa_saved *saved);
void spx__numa_leave(const spx__numa_saved *saved);

#endif
