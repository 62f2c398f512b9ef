//! The index's queries for `toolnorm serve`: sessions by agent, project, date, state and
//! text, and the agents and projects there are to filter by.

use serde::Serialize;

use super::backend::DbError;
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
    pub(crate) fn find(&mut self, name: &str) -> Result<Vec<i64>, DbError> {
        let resolved = std::fs::canonicalize(name)
            .ok()
            .map(|path| path.display().to_string());
        let ids = self.connection.all(
            "SELECT id FROM sessions WHERE path = ?1 OR path = ?2 OR session_id = ?1 \
             OR CAST(id AS TEXT) = ?1 ORDER BY started_ms IS NULL, started_ms, path",
            &[name.into(), resolved.into()],
            |row| row.int(0),
        )?;
        Ok(ids.into_iter().flatten().collect())
    }

    /// The sessions `filter` selects.
    pub(crate) fn list(&mut self, filter: &Filter) -> Result<Vec<Listed>, DbError> {
        let order = match filter.order.as_deref() {
            Some("oldest") => "s.started_ms IS NULL, s.started_ms, s.path",
            _ => "s.started_ms IS NULL, s.started_ms DESC, s.path",
        };
        // Where `needle` is in `haystack`; the number of diagnostics stored as JSON.
        let (contains, diagnostics, limit) = match self.connection.is_postgres() {
            true => (
                "strpos",
                "CAST(json_array_length(CAST(s.diagnostics AS json)) AS BIGINT)",
                "LIMIT CAST(?7 AS BIGINT)",
            ),
            false => (
                "instr",
                "json_array_length(s.diagnostics)",
                "LIMIT coalesce(?7, -1)",
            ),
        };
        let sql = format!(
            "SELECT s.id, s.agent, s.dialect, s.path, s.session_id, s.cwd, s.started, s.ended, \
             s.started_ms, s.calls, s.complete, s.failed, s.open, {diagnostics} \
             FROM sessions s \
             WHERE (CAST(?1 AS TEXT) IS NULL OR s.agent = ?1 OR s.dialect = ?1) \
             AND (CAST(?2 AS TEXT) IS NULL OR {contains}(s.cwd, ?2) > 0) \
             AND (CAST(?3 AS BIGINT) IS NULL OR s.started_ms >= ?3) \
             AND (CAST(?4 AS BIGINT) IS NULL OR s.started_ms < ?4) \
             AND (CAST(?5 AS TEXT) IS NULL OR (?5 = 'failed' AND s.failed > 0) \
                  OR (?5 = 'open' AND s.open > 0) \
                  OR (?5 = 'complete' AND s.calls > 0 AND s.failed = 0 AND s.open = 0)) \
             AND (CAST(?6 AS TEXT) IS NULL OR {contains}(lower(s.path), ?6) > 0 \
                  OR {contains}(lower(s.cwd), ?6) > 0 \
                  OR EXISTS (SELECT 1 FROM calls c WHERE c.session = s.id \
                             AND ({contains}(lower(c.title), ?6) > 0 \
                                  OR {contains}(lower(c.name), ?6) > 0))) \
             ORDER BY {order} {limit} OFFSET ?8"
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
        self.connection.all(
            &sql,
            &[
                blank(&filter.agent).into(),
                blank(&filter.project).into(),
                filter.since_ms.into(),
                filter.until_ms.into(),
                blank(&filter.state).into(),
                query.into(),
                filter.limit.map(i64::from).into(),
                i64::from(filter.offset.unwrap_or(0)).into(),
            ],
            |row| {
                Ok(Listed {
                    id: row.int(0)?.unwrap_or_default(),
                    agent: row.text(1)?,
                    dialect: row.text(2)?,
                    path: row.string(3)?,
                    session_id: row.text(4)?,
                    cwd: row.text(5)?,
                    started: row.text(6)?,
                    ended: row.text(7)?,
                    started_ms: row.int(8)?,
                    calls: row.count(9)?,
                    complete: row.count(10)?,
                    failed: row.count(11)?,
                    open: row.count(12)?,
                    diagnostics: row.count(13)?,
                })
            },
        )
    }

    /// The agents and the projects (directories) of the index, with their sessions.
    pub(crate) fn facets(&mut self) -> Result<Facets, DbError> {
        let mut count = |sql: &str| {
            self.connection.all(sql, &[], |row| {
                Ok(Facet {
                    name: row.string(0)?,
                    sessions: row.count(1)?,
                })
            })
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
