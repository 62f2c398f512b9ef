-- The schema of Goose's sessions.db (~/.local/share/goose/sessions/sessions.db) as
-- goose 1.20.0 creates it: `SessionStorage::create_schema` of
-- crates/goose/src/session/session_manager.rs in block/goose at
-- 51cc5db3879a816e3c3f09bfb5ee9b3f16194fbd (schema version 6,
-- `CURRENT_SCHEMA_VERSION`), its statements copied as written, in order; the version
-- row is the one it inserts (its bound parameter written out). Goose opens the
-- database in WAL mode.

CREATE TABLE schema_version (
                version INTEGER PRIMARY KEY,
                applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP
            );

INSERT INTO schema_version (version) VALUES (6);

CREATE TABLE sessions (
                id TEXT PRIMARY KEY,
                name TEXT NOT NULL DEFAULT '',
                description TEXT NOT NULL DEFAULT '',
                user_set_name BOOLEAN DEFAULT FALSE,
                session_type TEXT NOT NULL DEFAULT 'user',
                working_dir TEXT NOT NULL,
                created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
                updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
                extension_data TEXT DEFAULT '{}',
                total_tokens INTEGER,
                input_tokens INTEGER,
                output_tokens INTEGER,
                accumulated_total_tokens INTEGER,
                accumulated_input_tokens INTEGER,
                accumulated_output_tokens INTEGER,
                schedule_id TEXT,
                recipe_json TEXT,
                user_recipe_values_json TEXT,
                provider_name TEXT,
                model_config_json TEXT
            );

CREATE TABLE messages (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                session_id TEXT NOT NULL REFERENCES sessions(id),
                role TEXT NOT NULL,
                content_json TEXT NOT NULL,
                created_timestamp INTEGER NOT NULL,
                timestamp TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
                tokens INTEGER,
                metadata_json TEXT
            );

CREATE INDEX idx_messages_session ON messages(session_id);

CREATE INDEX idx_messages_timestamp ON messages(timestamp);

CREATE INDEX idx_sessions_updated ON sessions(updated_at DESC);

CREATE INDEX idx_sessions_type ON sessions(session_type);
