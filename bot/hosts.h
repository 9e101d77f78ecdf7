/*
 * hosts.h - the "test machine:" line of a report.
 *
 * Owns: turning the hosts fields a job carries (copied from lkp-tests'
 * hosts/<tbox_group>: nr_cpu, nr_node, brand, model, memory) into the line
 * 0-day prints: "<nr_cpu> threads <nr_node> sockets <brand> (<model>) with
 * <memory> memory", with the observed fallbacks (no brand, no model, no
 * node count, nr_socket for old hosts, a qemu command line for VMs).
 * Must not: read files.
 */
#ifndef RM_HOSTS_H
#define RM_HOSTS_H

#include "job.h"

/* The machine line (malloc'd, caller frees).  Falls back to the tbox_group,
 * then to "unknown machine", when the fields are missing. */
char *rm_hosts_machine_line(const struct rm_job *job);

#endif
