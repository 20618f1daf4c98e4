// SPDX-License-Identifier: MIT
#ifndef CSQLITE3_SHIM_H
#define CSQLITE3_SHIM_H
#include <sqlite3.h>

/// SQLITE_TRANSIENT is a cast macro that does not import into Swift: tells SQLite to copy bound text/blobs.
static inline sqlite3_destructor_type CSQLite3_transient(void) { return SQLITE_TRANSIENT; }

/// Extended result codes are expression macros, which do not import into Swift.
static const int CSQLite3_CONSTRAINT_NOTNULL = SQLITE_CONSTRAINT_NOTNULL;
static const int CSQLite3_CONSTRAINT_CHECK = SQLITE_CONSTRAINT_CHECK;
static const int CSQLite3_CONSTRAINT_UNIQUE = SQLITE_CONSTRAINT_UNIQUE;
static const int CSQLite3_CONSTRAINT_PRIMARYKEY = SQLITE_CONSTRAINT_PRIMARYKEY;
static const int CSQLite3_CONSTRAINT_FOREIGNKEY = SQLITE_CONSTRAINT_FOREIGNKEY;
static const int CSQLite3_CONSTRAINT_TRIGGER = SQLITE_CONSTRAINT_TRIGGER;

/// sqlite3_db_config is variadic, which Swift cannot call: enables or disables foreign-key enforcement.
static inline int CSQLite3_enableForeignKeys(sqlite3 *db, int on) {
    int result = 0;
    return sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_FKEY, on, &result);
}

/// sqlite3_db_config is variadic: turns off double-quoted string literals, a legacy misfeature that hides typos.
static inline int CSQLite3_disableDQS(sqlite3 *db) {
    int rc = sqlite3_db_config(db, SQLITE_DBCONFIG_DQS_DML, 0, (int *)0);
    if (rc != SQLITE_OK) return rc;
    return sqlite3_db_config(db, SQLITE_DBCONFIG_DQS_DDL, 0, (int *)0);
}
/// sqlite3_config is variadic: turns off SQLite's memory statistics, which take a global mutex on every
/// allocation (4 % of an import's time in a profile). Must run before the first connection; later it is a no-op
/// that returns SQLITE_MISUSE.
static inline int CSQLite3_disableMemoryStatistics(void) { return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); }
#endif
