//! The routes of `toolnorm serve`:
//!
//! | route | answer |
//! | --- | --- |
//! | `GET /` | the catalog page |
//! | `GET /sessions/{id}` | the session's timeline, the page `toolnorm view` writes |
//! | `GET /api/sessions` | a JSON array, an object per session; filtered by `agent`, `project`, `since`, `until` (a date or an RFC 3339 instant), `state` (`failed`, `open`, `complete`), `q` (text in a call's title or tool, the path or the directory), `order=oldest`, `limit`, `offset` |
//! | `GET /api/sessions/{id}/parts` | the session's parts, a JSON array in the order first seen |
//! | `GET /api/facets` | the agents and projects, with their sessions |
//! | `GET /api/stats` | what `toolnorm stats --json` gives over the index |
//! | `GET /api/events` | server-sent events: `indexed` (the run's counts) each time the index changed |

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Path, Query, State};
use axum::http::{StatusCode, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use serde::Deserialize;
use tokio_stream::StreamExt;
use tokio_stream::wrappers::BroadcastStream;

use super::{Catalog, page};
use crate::catalog::DbError;
use crate::catalog::db::Index;
use crate::catalog::parse_since;
use crate::catalog::query::Filter;

/// An API error: its status and a message, answered as `{"error": message}`.
#[derive(Debug)]
struct Failure(StatusCode, String);

impl IntoResponse for Failure {
    fn into_response(self) -> Response {
        (self.0, Json(serde_json::json!({ "error": self.1 }))).into_response()
    }
}

/// The routes, guarded (see [`crate::http`]).
pub(super) fn router(catalog: Arc<Catalog>, port: u16) -> Router {
    let timed = crate::http::timed(
        Router::new()
            .route("/", get(catalog_page))
            .route("/sessions/{id}", get(session_page))
            .route("/api/sessions", get(sessions))
            .route("/api/sessions/{id}/parts", get(parts))
            .route("/api/facets", get(facets))
            .route("/api/stats", get(stats)),
    );
    let router = timed
        .route("/api/events", get(events))
        .fallback(|| async { Failure(StatusCode::NOT_FOUND, "not found".to_owned()) })
        .with_state(catalog);
    crate::http::guarded(router, port)
}

/// Runs `read` on the index, read-only, on the blocking pool.
async fn with_index<T: Send + 'static>(
    catalog: &Catalog,
    read: impl FnOnce(&mut Index) -> Result<T, DbError> + Send + 'static,
) -> Result<T, Failure> {
    let db = catalog.db.clone();
    tokio::task::spawn_blocking(move || {
        let mut index = Index::open_read_only(&db)
            .map_err(|message| Failure(StatusCode::SERVICE_UNAVAILABLE, message))?;
        read(&mut index)
            .map_err(|error| Failure(StatusCode::INTERNAL_SERVER_ERROR, index.fail(error)))
    })
    .await
    .map_err(|error| Failure(StatusCode::INTERNAL_SERVER_ERROR, error.to_string()))?
}

async fn catalog_page() -> Result<Html<String>, Failure> {
    page::catalog()
        .map(Html)
        .map_err(|error| Failure(StatusCode::INTERNAL_SERVER_ERROR, error.to_string()))
}

async fn session_page(
    State(catalog): State<Arc<Catalog>>,
    Path(id): Path<i64>,
) -> Result<Response, Failure> {
    let session = with_index(&catalog, move |index| index.session(id)).await?;
    let Some(session) = session else {
        return Err(Failure(StatusCode::NOT_FOUND, format!("no session {id}")));
    };
    let html = crate::view::page(&[session], false)
        .map_err(|error| Failure(StatusCode::INTERNAL_SERVER_ERROR, error.to_string()))?;
    Ok(([(header::CONTENT_TYPE, "text/html; charset=utf-8")], html).into_response())
}

/// The query of `/api/sessions` (see [`Filter`]), its dates as written.
#[derive(Debug, Deserialize)]
struct SessionsQuery {
    agent: Option<String>,
    project: Option<String>,
    since: Option<String>,
    until: Option<String>,
    state: Option<String>,
    q: Option<String>,
    order: Option<String>,
    limit: Option<u32>,
    offset: Option<u32>,
}

async fn sessions(
    State(catalog): State<Arc<Catalog>>,
    Query(query): Query<SessionsQuery>,
) -> Result<Response, Failure> {
    let date = |text: Option<String>, name: &str| -> Result<Option<i64>, Failure> {
        match text
            .as_deref()
            .map(str::trim)
            .filter(|text| !text.is_empty())
        {
            None => Ok(None),
            Some(text) => parse_since(text)
                .map(Some)
                .map_err(|message| Failure(StatusCode::BAD_REQUEST, format!("{name}: {message}"))),
        }
    };
    let filter = Filter {
        since_ms: date(query.since, "since")?,
        until_ms: date(query.until, "until")?,
        agent: query.agent,
        project: query.project,
        state: query.state,
        q: query.q,
        order: query.order,
        limit: query.limit,
        offset: query.offset,
    };
    let listed = with_index(&catalog, move |index| index.list(&filter)).await?;
    Ok(Json(listed).into_response())
}

async fn parts(
    State(catalog): State<Arc<Catalog>>,
    Path(id): Path<i64>,
) -> Result<Response, Failure> {
    match with_index(&catalog, move |index| index.session(id)).await? {
        Some(session) => Ok(Json(session.parts).into_response()),
        None => Err(Failure(StatusCode::NOT_FOUND, format!("no session {id}"))),
    }
}

async fn facets(State(catalog): State<Arc<Catalog>>) -> Result<Response, Failure> {
    let facets = with_index(&catalog, Index::facets).await?;
    Ok(Json(facets).into_response())
}

/// The stats of the whole index, computed once per change of the index.
async fn stats(State(catalog): State<Arc<Catalog>>) -> Result<Response, Failure> {
    if let Some(json) = catalog.stats.read().await.clone() {
        return Ok(json_text(&json));
    }
    let mut cached = catalog.stats.write().await;
    if let Some(json) = cached.clone() {
        return Ok(json_text(&json));
    }
    let sessions = with_index(&catalog, Index::summaries).await?;
    let json = tokio::task::spawn_blocking(move || crate::stats::report_json(sessions, 10))
        .await
        .map_err(|error| Failure(StatusCode::INTERNAL_SERVER_ERROR, error.to_string()))?
        .map_err(|error| Failure(StatusCode::INTERNAL_SERVER_ERROR, error.to_string()))?;
    let json = Arc::new(json);
    *cached = Some(Arc::clone(&json));
    Ok(json_text(&json))
}

fn json_text(json: &str) -> Response {
    (
        [(header::CONTENT_TYPE, "application/json")],
        json.to_owned(),
    )
        .into_response()
}

/// `indexed` after each run that changed the index; a comment every 15 s keeps the
/// connection open.
async fn events(
    State(catalog): State<Arc<Catalog>>,
) -> Sse<impl tokio_stream::Stream<Item = Result<Event, Infallible>>> {
    let stream = BroadcastStream::new(catalog.changes.subscribe()).filter_map(|change| {
        // A client too slow to take every change is told once the index changed.
        let data = change.map_or_else(|_| "{}".to_owned(), |data| data.as_str().to_owned());
        Some(Ok(Event::default().event("indexed").data(data)))
    });
    Sse::new(stream).keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
}
