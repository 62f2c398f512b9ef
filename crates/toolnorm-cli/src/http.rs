//! The local web server `toolnorm serve` and `toolnorm view --serve` share: axum on a
//! tokio runtime, bound to 127.0.0.1 only.
//!
//! Every response is guarded the same way: a request naming another host than
//! `127.0.0.1:PORT` or `localhost:PORT` is refused (421, no DNS rebinding); at most
//! [`MAX_REQUESTS`] are answered at once (the others wait); a request body is at most
//! [`MAX_BODY`]; pages and API answers are never cached and never sniffed. Ordinary
//! routes time out after [`REQUEST_TIMEOUT`] ([`timed`]); event streams stay open.

use std::io;
use std::net::{Ipv4Addr, SocketAddr};
use std::time::Duration;

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use tower::limit::GlobalConcurrencyLimitLayer;
use tower_http::limit::RequestBodyLimitLayer;
use tower_http::set_header::SetResponseHeaderLayer;
use tower_http::timeout::TimeoutLayer;

/// Requests answered at once; more wait for one to end.
pub(crate) const MAX_REQUESTS: usize = 512;
/// The largest request body taken.
pub(crate) const MAX_BODY: usize = 64 * 1024;
/// How long an ordinary request may take.
pub(crate) const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

/// The runtime the server runs on: two worker threads (serving a page is light; the
/// database work goes to tokio's blocking pool).
pub(crate) fn runtime() -> io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
}

/// A listener on 127.0.0.1 (`port` 0 or none: any free port), and its port.
pub(crate) async fn bind(port: Option<u16>) -> io::Result<(tokio::net::TcpListener, u16)> {
    let listener =
        tokio::net::TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, port.unwrap_or(0))))
            .await?;
    let port = listener.local_addr()?.port();
    Ok((listener, port))
}

/// `routes` with the time limit of ordinary requests.
pub(crate) fn timed<S: Clone + Send + Sync + 'static>(routes: Router<S>) -> Router<S> {
    routes.layer(TimeoutLayer::with_status_code(
        StatusCode::SERVICE_UNAVAILABLE,
        REQUEST_TIMEOUT,
    ))
}

/// `router` with the guards every response has (see the module's documentation).
pub(crate) fn guarded(router: Router, port: u16) -> Router {
    router
        .layer(middleware::from_fn_with_state(port, known_host))
        .layer(RequestBodyLimitLayer::new(MAX_BODY))
        .layer(SetResponseHeaderLayer::overriding(
            header::CACHE_CONTROL,
            HeaderValue::from_static("no-store"),
        ))
        .layer(SetResponseHeaderLayer::overriding(
            header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        ))
        .layer(SetResponseHeaderLayer::overriding(
            header::REFERRER_POLICY,
            HeaderValue::from_static("no-referrer"),
        ))
        .layer(GlobalConcurrencyLimitLayer::new(MAX_REQUESTS))
}

/// Refuses a request whose `Host` is not this server's loopback address.
async fn known_host(State(port): State<u16>, request: Request, next: Next) -> Response {
    let host = request
        .headers()
        .get(header::HOST)
        .and_then(|host| host.to_str().ok())
        .unwrap_or_default();
    let known = [format!("127.0.0.1:{port}"), format!("localhost:{port}")];
    if !known.iter().any(|known| known == host) {
        return (StatusCode::MISDIRECTED_REQUEST, "unknown host").into_response();
    }
    next.run(request).await
}

/// Serves `router` on `listener` until the process ends (Ctrl-C ends it: the index is
/// written in transactions, so there is nothing to finish).
pub(crate) async fn run(listener: tokio::net::TcpListener, router: Router) -> io::Result<()> {
    axum::serve(listener, router).await
}
