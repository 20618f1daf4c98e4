// SPDX-License-Identifier: MIT
#ifndef CSQLITE3_SHIM_H
#define CSQLITE3_SHIM_H
#include <sqlite3.h>

/// SQLITE_TRANSIENT is a cast macro that does not import into Swift: tells SQLite to copy bound text/blobs.
static inline sqlite3_destructor_type CSQLite3_transient(void) { return SQLITE_TRANSIENT; }

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
#endif
