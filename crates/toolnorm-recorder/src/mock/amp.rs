//! What Amp asks of its server, answered on loopback: Amp (`@sourcegraph/amp`) sends
//! its model requests to `<AMP_URL>/api/provider/anthropic/v1/messages` (a path from
//! the root, whatever path `AMP_URL` has), answered with the scenarios' Amp turns
//! (`[[agents.amp]]`), and its account and thread calls to
//! `<AMP_URL>/api/internal?<method>` (JSON `{"ok":…,"result"|"error":…}`), answered
//! here: a user for `getUserInfo`, no stored thread for `getThread`, an empty result for
//! the rest (uploads, thread metadata, free-tier status).

use serde_json::json;

use super::server::Reply;

/// The agent whose turns answer Amp's model requests.
pub(super) const AGENT: &str = "amp";

/// The model API path of a request Amp sends through its server's provider proxy
/// (`/api/provider/anthropic/v1/messages` → `/v1/messages`).
pub(super) fn provider_path(path: &str) -> Option<&str> {
    path.strip_prefix("/api/provider/anthropic")
        .filter(|rest| rest.starts_with('/'))
}

/// The answer to one of Amp's internal calls (`POST /api/internal?<method>`).
pub(super) fn internal(path: &str, url: &str) -> Option<Reply> {
    if path.trim_end_matches('/') != "/api/internal" {
        return None;
    }
    let method = url.split_once('?').map_or("", |(_, query)| query);
    let method = method.split('&').next().unwrap_or_default();
    Some(Reply::json(match method {
        "getUserInfo" => json!({"ok": true, "result": {
            "id": "user-mock", "email": "user@example.com", "username": "user", "features": []
        }}),
        "getThread" => json!({"ok": false, "error": {
            "code": "thread-not-found", "message": "no stored thread"
        }}),
        _ => json!({"ok": true, "result": {}}),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amps_server_paths_are_answered() {
        assert_eq!(
            provider_path("/api/provider/anthropic/v1/messages"),
            Some("/v1/messages")
        );
        assert_eq!(provider_path("/api/provider/anthropicx"), None);
        assert_eq!(provider_path("/v1/messages"), None);
        assert!(internal("/api/internal", "/api/internal?getUserInfo").is_some());
        assert!(internal("/api/internals", "/api/internals?x").is_none());
    }
}
