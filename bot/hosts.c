/* hosts.c - see hosts.h. */
#include "hosts.h"

#include <string.h>

#include "strbuf.h"

char *rm_hosts_machine_line(const struct rm_job *job)
{
	const char *cpu = rm_job_field(job, "nr_cpu");
	const char *nodes = rm_job_field(job, "nr_node");
	const char *brand = rm_job_field(job, "brand");
	const char *model = rm_job_field(job, "model");
	const char *mem = rm_job_field(job, "memory");
	struct rm_sb sb = RM_SB_INIT;

	if (!nodes)
		nodes = rm_job_field(job, "nr_socket");
	if (brand && !*brand)
		brand = NULL;
	if (model && !*model)
		model = NULL;
	rm_sb_init(&sb);
	if (model && !strncmp(model, "qemu-system", 11)) {
		/* a VM: the qemu command line */
		rm_sb_adds(&sb, model);
		if (cpu)
			rm_sb_addf(&sb, " -smp %s", cpu);
		if (mem)
			rm_sb_addf(&sb, " -m %s", mem);
		return rm_sb_detach(&sb, NULL);
	}
	if (!cpu || !mem) {
		const char *tbox = rm_job_field(job, "tbox_group");

		rm_sb_adds(&sb, tbox && *tbox ? tbox : "unknown machine");
		return rm_sb_detach(&sb, NULL);
	}
	rm_sb_addf(&sb, "%s threads", cpu);
	if (nodes)
		rm_sb_addf(&sb, " %s sockets", nodes); /* never singular, as 0-day prints it */
	if (brand)
		rm_sb_addf(&sb, " %s", brand);
	if (model)
		rm_sb_addf(&sb, " (%s)", model);
	rm_sb_addf(&sb, " with %s memory", mem);
	return rm_sb_detach(&sb, NULL);
}
