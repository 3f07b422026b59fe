/**
 * SQLite schema of the atcasim database as ordered migrations keyed to `PRAGMA user_version`:
 * migration N brings a database from version N-1 to N, inside one transaction. Never edit a
 * released migration; append a new one. `PRAGMA application_id` marks the file as ours, so a
 * foreign SQLite file is refused rather than silently reused (SQLite file format §1.3.13).
 */

/** `PRAGMA application_id` of atcasim databases: 'ATCA' in ASCII. */
export const APPLICATION_ID = 0x41544341;

/** One schema step. */
export interface Migration {
  version: number;
  description: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'initial schema: config, SEL, FRU data, thresholds, users, FRU state, HA roles, meta',
    sql: `
      CREATE TABLE meta (
        key   TEXT PRIMARY KEY,
        value TEXT NOT NULL
      ) STRICT;
      CREATE TABLE shelf_config (
        id        INTEGER PRIMARY KEY CHECK (id = 1),
        yaml      TEXT NOT NULL,
        source    TEXT NOT NULL,
        stored_at INTEGER NOT NULL
      ) STRICT;
      CREATE TABLE sel (
        seq       INTEGER PRIMARY KEY AUTOINCREMENT,
        record_id INTEGER NOT NULL UNIQUE CHECK (record_id BETWEEN 1 AND 65534),
        bytes     BLOB NOT NULL CHECK (length(bytes) = 16)
      ) STRICT;
      CREATE TABLE fru_data (
        fru      TEXT PRIMARY KEY,
        bytes    BLOB NOT NULL,
        baseline TEXT NOT NULL
      ) STRICT;
      CREATE TABLE sensor_thresholds (
        fru      TEXT NOT NULL,
        sensor   INTEGER NOT NULL CHECK (sensor BETWEEN 0 AND 255),
        vals     TEXT NOT NULL,
        baseline TEXT NOT NULL,
        PRIMARY KEY (fru, sensor)
      ) STRICT;
      CREATE TABLE ipmi_users (
        id        INTEGER PRIMARY KEY CHECK (id BETWEEN 1 AND 15),
        name      TEXT NOT NULL,
        password  BLOB NOT NULL CHECK (length(password) <= 20),
        privilege INTEGER NOT NULL CHECK (privilege BETWEEN 1 AND 4 OR privilege = 15),
        enabled   INTEGER NOT NULL CHECK (enabled IN (0, 1)),
        flags     INTEGER NOT NULL DEFAULT 0 CHECK (flags BETWEEN 0 AND 7)
      ) STRICT;
      CREATE TABLE fru_state (
        fru   TEXT PRIMARY KEY,
        state TEXT NOT NULL
      ) STRICT;
      CREATE TABLE ha_roles (
        key   TEXT PRIMARY KEY,
        node  TEXT NOT NULL,
        role  TEXT NOT NULL,
        epoch INTEGER NOT NULL,
        at    INTEGER NOT NULL
      ) STRICT;
      CREATE TABLE ha_role_history (
        seq   INTEGER PRIMARY KEY AUTOINCREMENT,
        key   TEXT NOT NULL,
        node  TEXT NOT NULL,
        role  TEXT NOT NULL,
        epoch INTEGER NOT NULL,
        at    INTEGER NOT NULL
      ) STRICT;
    `,
  },
];

/** The schema version a fully migrated database has. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/** Tables every migrated database must have (checked on open). */
export const EXPECTED_TABLES: readonly string[] = [
  'meta',
  'shelf_config',
  'sel',
  'fru_data',
  'sensor_thresholds',
  'ipmi_users',
  'fru_state',
  'ha_roles',
  'ha_role_history',
];
