/* unit.h - shared declarations for the cmocka unit tests. */
#ifndef RM_UNIT_H
#define RM_UNIT_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "rules.h"

/* Rules loaded once from config/ for every test that needs them. */
const struct rm_rules *unit_rules(void);

extern const struct CMUnitTest unit_table_tests[];
extern const size_t unit_table_ntests;
extern const struct CMUnitTest unit_stats_tests[];
extern const size_t unit_stats_ntests;
extern const struct CMUnitTest unit_message_tests[];
extern const size_t unit_message_ntests;
extern const struct CMUnitTest unit_pipeline_tests[];
extern const size_t unit_pipeline_ntests;
extern const struct CMUnitTest unit_parse_tests[];
extern const size_t unit_parse_ntests;
extern const struct CMUnitTest unit_store_tests[];
extern const size_t unit_store_ntests;
extern const struct CMUnitTest unit_recipients_tests[];
extern const size_t unit_recipients_ntests;
extern const struct CMUnitTest unit_report_tests[];
extern const size_t unit_report_ntests;
extern const struct CMUnitTest unit_strbuf_tests[];
extern const size_t unit_strbuf_ntests;
extern const struct CMUnitTest unit_listen_tests[];
extern const size_t unit_listen_ntests;

#endif
