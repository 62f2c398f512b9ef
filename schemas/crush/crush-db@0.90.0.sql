-- The schema of Crush's crush.db (`<project>/.crush/crush.db`, its data directory) as
-- crush 0.37.0 to 0.90.0 migrate it: the `-- +goose Up` statements of
-- internal/db/migrations/*.sql in charmbracelet/crush at v0.90.0
-- (70d321626ca20ad8fcfb99e61bbe377a6b91748c), copied as written, in the order
-- pressly/goose (v3.27.3) applies them, after the version table that goose creates for
-- SQLite and the rows it inserts (version 0, then one a migration; `tstamp` left to its
-- default). Crush's newest migration is 20260127000000.

CREATE TABLE goose_db_version (
		id INTEGER PRIMARY KEY AUTOINCREMENT,
		version_id INTEGER NOT NULL,
		is_applied INTEGER NOT NULL,
		tstamp TIMESTAMP DEFAULT (datetime('now'))
	);

INSERT INTO goose_db_version (version_id, is_applied) VALUES (0, 1);

-- 20250424200609_initial.sql
-- Sessions
CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY,
    parent_session_id TEXT,
    title TEXT NOT NULL,
    message_count INTEGER NOT NULL DEFAULT 0 CHECK (message_count >= 0),
    prompt_tokens  INTEGER NOT NULL DEFAULT 0 CHECK (prompt_tokens >= 0),
    completion_tokens  INTEGER NOT NULL DEFAULT 0 CHECK (completion_tokens>= 0),
    cost REAL NOT NULL DEFAULT 0.0 CHECK (cost >= 0.0),
    updated_at INTEGER NOT NULL,  -- Unix timestamp in milliseconds
    created_at INTEGER NOT NULL   -- Unix timestamp in milliseconds
);

CREATE TRIGGER IF NOT EXISTS update_sessions_updated_at
AFTER UPDATE ON sessions
BEGIN
UPDATE sessions SET updated_at = strftime('%s', 'now')
WHERE id = new.id;
END;

-- Files
CREATE TABLE IF NOT EXISTS files (
    id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL,
    path TEXT NOT NULL,
    content TEXT NOT NULL,
    version INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL,  -- Unix timestamp in milliseconds
    updated_at INTEGER NOT NULL,  -- Unix timestamp in milliseconds
    FOREIGN KEY (session_id) REFERENCES sessions (id) ON DELETE CASCADE,
    UNIQUE(path, session_id, version)
);

CREATE INDEX IF NOT EXISTS idx_files_session_id ON files (session_id);
CREATE INDEX IF NOT EXISTS idx_files_path ON files (path);

CREATE TRIGGER IF NOT EXISTS update_files_updated_at
AFTER UPDATE ON files
BEGIN
UPDATE files SET updated_at = strftime('%s', 'now')
WHERE id = new.id;
END;

-- Messages
CREATE TABLE IF NOT EXISTS messages (
    id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL,
    role TEXT NOT NULL,
    parts TEXT NOT NULL default '[]',
    model TEXT,
    created_at INTEGER NOT NULL,  -- Unix timestamp in milliseconds
    updated_at INTEGER NOT NULL,  -- Unix timestamp in milliseconds
    finished_at INTEGER,  -- Unix timestamp in milliseconds
    FOREIGN KEY (session_id) REFERENCES sessions (id) ON DELETE CASCADE
);

CREATE INDEX IF NOT EXISTS idx_messages_session_id ON messages (session_id);

CREATE TRIGGER IF NOT EXISTS update_messages_updated_at
AFTER UPDATE ON messages
BEGIN
UPDATE messages SET updated_at = strftime('%s', 'now')
WHERE id = new.id;
END;

CREATE TRIGGER IF NOT EXISTS update_session_message_count_on_insert
AFTER INSERT ON messages
BEGIN
UPDATE sessions SET
    message_count = message_count + 1
WHERE id = new.session_id;
END;

CREATE TRIGGER IF NOT EXISTS update_session_message_count_on_delete
AFTER DELETE ON messages
BEGIN
UPDATE sessions SET
    message_count = message_count - 1
WHERE id = old.session_id;
END;
INSERT INTO goose_db_version (version_id, is_applied) VALUES (20250424200609, 1);

-- 20250515105448_add_summary_message_id.sql
ALTER TABLE sessions ADD COLUMN summary_message_id TEXT;
INSERT INTO goose_db_version (version_id, is_applied) VALUES (20250515105448, 1);

-- 20250624000000_add_created_at_indexes.sql
-- Add indexes on created_at columns for better ORDER BY performance
CREATE INDEX IF NOT EXISTS idx_sessions_created_at ON sessions (created_at);
CREATE INDEX IF NOT EXISTS idx_messages_created_at ON messages (created_at);
CREATE INDEX IF NOT EXISTS idx_files_created_at ON files (created_at);
INSERT INTO goose_db_version (version_id, is_applied) VALUES (20250624000000, 1);

-- 20250627000000_add_provider_to_messages.sql
-- Add provider column to messages table
ALTER TABLE messages ADD COLUMN provider TEXT;
INSERT INTO goose_db_version (version_id, is_applied) VALUES (20250627000000, 1);

-- 20250810000000_add_is_summary_message.sql
ALTER TABLE messages ADD COLUMN is_summary_message INTEGER DEFAULT 0 NOT NULL;
INSERT INTO goose_db_version (version_id, is_applied) VALUES (20250810000000, 1);

-- 20250812000000_add_todos_to_sessions.sql
ALTER TABLE sessions ADD COLUMN todos TEXT;
INSERT INTO goose_db_version (version_id, is_applied) VALUES (20250812000000, 1);

-- 20260127000000_add_read_files_table.sql
CREATE TABLE IF NOT EXISTS read_files (
    session_id TEXT NOT NULL CHECK (session_id != ''),
    path TEXT NOT NULL CHECK (path != ''),
    read_at INTEGER NOT NULL,  -- Unix timestamp in seconds when file was last read
    FOREIGN KEY (session_id) REFERENCES sessions (id) ON DELETE CASCADE,
    PRIMARY KEY (path, session_id)
);

CREATE INDEX IF NOT EXISTS idx_read_files_session_id ON read_files (session_id);
CREATE INDEX IF NOT EXISTS idx_read_files_path ON read_files (path);
INSERT INTO goose_db_version (version_id, is_applied) VALUES (20260127000000, 1);
