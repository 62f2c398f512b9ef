//! The index's queries for `toolnorm serve`: sessions by agent, project, date, state and
//! text, and the agents and projects there are to filter by.

use rusqlite::params;
use serde::Serialize;

use super::db::Index;

/// Which sessions to list (every field optional: all sessions, newest first).
#[derive(Debug, Default, Clone)]
pub(crate) struct Filter {
    /// A provider (`codex`) or a dialect (`codex-rollout`).
    pub(crate) agent: Option<String>,
    /// Text the session's directory contains.
    pub(crate) project: Option<String>,
    /// Started at or after this instant (epoch ms).
    pub(crate) since_ms: Option<i64>,
    /// Started before this instant (epoch ms).
    pub(crate) until_ms: Option<i64>,
    /// `failed` (a call failed), `open` (a call never ended) or `complete` (every call
    /// complete).
    pub(crate) state: Option<String>,
    /// Text (any case) in a call's title or tool name, or the session's path or directory.
    pub(crate) q: Option<String>,
    /// `oldest` lists oldest first.
    pub(crate) order: Option<String>,
    /// At most this many sessions.
    pub(crate) limit: Option<u32>,
    /// Skipping this many first.
    pub(crate) offset: Option<u32>,
}

/// A session as the API lists it.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Listed {
    /// The index's id of the session (`/api/sessions/{id}/parts`); kept while its file is.
    pub(crate) id: i64,
    pub(crate) agent: Option<String>,
    pub(crate) dialect: Option<String>,
    pub(crate) path: String,
    pub(crate) session_id: Option<String>,
    pub(crate) cwd: Option<String>,
    pub(crate) started: Option<String>,
    pub(crate) ended: Option<String>,
    pub(crate) started_ms: Option<i64>,
    pub(crate) calls: u64,
    pub(crate) complete: u64,
    pub(crate) failed: u64,
    pub(crate) open: u64,
    /// How many diagnostics reading it gave.
    pub(crate) diagnostics: u64,
}

/// How many sessions one agent or project has.
#[derive(Debug, Serialize)]
pub(crate) struct Facet {
    pub(crate) name: String,
    pub(crate) sessions: u64,
}

/// The agents and projects of the index, most sessions first.
#[derive(Debug, Serialize)]
pub(crate) struct Facets {
    pub(crate) agents: Vec<Facet>,
    pub(crate) projects: Vec<Facet>,
}

impl Index {
    /// The ids of the sessions `name` names: a session file's path (as indexed, or as
    /// `name` resolves from here), a provider's session id, or an id of the index.
    pub(crate) fn find(&self, name: &str) -> Result<Vec<i64>, rusqlite::Error> {
        let resolved = std::fs::canonicalize(name)
            .ok()
            .map(|path| path.display().to_string());
        self.connection
            .prepare_cached(
                "SELECT id FROM sessions WHERE path = ?1 OR path = ?2 OR session_id = ?1 \
                 OR CAST(id AS TEXT) = ?1 ORDER BY started_ms IS NULL, started_ms, path",
            )?
            .query_map(params![name, resolved], |row| row.get(0))?
            .collect()
    }

    /// The sessions `filter` selects.
    pub(crate) fn list(&self, filter: &Filter) -> Result<Vec<Listed>, rusqlite::Error> {
        let order = match filter.order.as_deref() {
            Some("oldest") => "started_ms IS NULL, started_ms, path",
            _ => "started_ms IS NULL, started_ms DESC, path",
        };
        let sql = format!(
            "SELECT s.id, s.agent, s.dialect, s.path, s.session_id, s.cwd, s.started, s.ended, \
             s.started_ms, s.calls, s.complete, s.failed, s.open, \
             json_array_length(s.diagnostics) FROM sessions s \
             WHERE (?1 IS NULL OR s.agent = ?1 OR s.dialect = ?1) \
             AND (?2 IS NULL OR instr(s.cwd, ?2) > 0) \
             AND (?3 IS NULL OR s.started_ms >= ?3) \
             AND (?4 IS NULL OR s.started_ms < ?4) \
             AND (?5 IS NULL OR (?5 = 'failed' AND s.failed > 0) OR (?5 = 'open' AND s.open > 0) \
                  OR (?5 = 'complete' AND s.calls > 0 AND s.failed = 0 AND s.open = 0)) \
             AND (?6 IS NULL OR instr(lower(s.path), ?6) > 0 OR instr(lower(s.cwd), ?6) > 0 \
                  OR EXISTS (SELECT 1 FROM calls c WHERE c.session = s.id \
                             AND (instr(lower(c.title), ?6) > 0 OR instr(lower(c.name), ?6) > 0))) \
             ORDER BY {order} LIMIT ?7 OFFSET ?8"
        );
        let query = filter
            .q
            .as_deref()
            .map(str::trim)
            .filter(|q| !q.is_empty())
            .map(str::to_lowercase);
        fn blank(text: &Option<String>) -> Option<&str> {
            text.as_deref().filter(|text| !text.is_empty())
        }
        let mut statement = self.connection.prepare_cached(&sql)?;
        let rows = statement
            .query_map(
                params![
                    blank(&filter.agent),
                    blank(&filter.project),
                    filter.since_ms,
                    filter.until_ms,
                    blank(&filter.state),
                    query,
                    filter.limit.map_or(-1, i64::from),
                    filter.offset.unwrap_or(0),
                ],
                |row| {
                    Ok(Listed {
                        id: row.get(0)?,
                        agent: row.get(1)?,
                        dialect: row.get(2)?,
                        path: row.get(3)?,
                        session_id: row.get(4)?,
                        cwd: row.get(5)?,
                        started: row.get(6)?,
                        ended: row.get(7)?,
                        started_ms: row.get(8)?,
                        calls: row.get(9)?,
                        complete: row.get(10)?,
                        failed: row.get(11)?,
                        open: row.get(12)?,
                        diagnostics: row.get::<_, Option<u64>>(13)?.unwrap_or(0),
                    })
                },
            )?
            .collect::<Result<Vec<Listed>, _>>()?;
        Ok(rows)
    }

    /// The agents and the projects (directories) of the index, with their sessions.
    pub(crate) fn facets(&self) -> Result<Facets, rusqlite::Error> {
        let count = |sql: &str| -> Result<Vec<Facet>, rusqlite::Error> {
            self.connection
                .prepare_cached(sql)?
                .query_map([], |row| {
                    Ok(Facet {
                        name: row.get(0)?,
                        sessions: row.get(1)?,
                    })
                })?
                .collect()
        };
        Ok(Facets {
            agents: count(
                "SELECT agent, count(*) AS n FROM sessions WHERE agent IS NOT NULL \
                 GROUP BY agent ORDER BY n DESC, agent",
            )?,
            projects: count(
                "SELECT cwd, count(*) AS n FROM sessions WHERE cwd IS NOT NULL \
                 GROUP BY cwd ORDER BY n DESC, cwd",
            )?,
        })
    }
}
