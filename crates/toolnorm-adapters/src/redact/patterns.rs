//! The built-in secret patterns, written from each service's published token format.
//!
//! Each pattern names the kind that replaces it (`[REDACTED:<kind>]`). A pattern with a
//! capture group `secret` replaces only that group (the value after `Authorization:`, a
//! password in a URL), so what names the secret stays readable. Character classes never
//! take a `"` or `\`, so a match inside a JSON string literal never spans its end or an
//! escape: redacting raw JSON text keeps it JSON.

/// A built-in pattern: the kind it reports, and its regular expression.
pub(super) struct Pattern {
    pub kind: &'static str,
    pub regex: &'static str,
}

/// The name part of a variable, flag or field that holds a secret.
const SECRET_NAME: &str =
    r"(?:api[_-]?key|access[_-]?key|private[_-]?key|secret|token|password|passwd|credential)";

/// In order: the specific formats first, so a key is reported by its service; the
/// generic name/value forms last.
pub(super) fn builtin() -> Vec<Pattern> {
    vec![
        // PEM (RFC 7468): the whole block, from BEGIN to END, of any private key.
        Pattern {
            kind: "private_key",
            regex: r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----[^\x22]*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----",
        },
        // Anthropic: API keys `sk-ant-api03-…`, admin keys `sk-ant-admin01-…`
        // (docs.anthropic.com, "API keys").
        Pattern {
            kind: "anthropic_key",
            regex: r"sk-ant-[a-z]+[0-9]*-[A-Za-z0-9_-]{20,}",
        },
        // OpenAI: `sk-…`, project keys `sk-proj-…`, service accounts `sk-svcacct-…`,
        // admin keys `sk-admin-…` (platform.openai.com, "API keys").
        Pattern {
            kind: "openai_key",
            regex: r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}",
        },
        // GitHub: classic tokens `ghp_`, `gho_`, `ghu_`, `ghs_`, `ghr_` + 36 characters,
        // fine-grained `github_pat_…` (docs.github.com, "About authentication to GitHub").
        Pattern {
            kind: "github_token",
            regex: r"\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})",
        },
        // GitLab: personal, deploy, runner, pipeline-trigger … tokens `glpat-`, `gldt-`,
        // `glrt-`, `glptt-` … (docs.gitlab.com, "Token overview").
        Pattern {
            kind: "gitlab_token",
            regex: r"\bgl(?:pat|dt|rt|ptt|cbt|oas|ft|imt|agent|soat)-[A-Za-z0-9_-]{20,}",
        },
        // AWS: access key ids (`AKIA` long-term, `ASIA` temporary, …) and, in context,
        // secret access keys (40 characters) (docs.aws.amazon.com, IAM "access keys").
        Pattern {
            kind: "aws_access_key_id",
            regex: r"\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b",
        },
        Pattern {
            kind: "aws_secret_access_key",
            regex: r"(?i)aws_?secret_?access_?key[\x27]?\s*[:=]\s*[\x27]?(?P<secret>[A-Za-z0-9/+=]{40})",
        },
        // Google Cloud API keys: `AIza` + 35 characters (cloud.google.com, "API keys").
        Pattern {
            kind: "google_api_key",
            regex: r"\bAIza[0-9A-Za-z_-]{35}",
        },
        // Slack: bot, user, app … tokens `xoxb-`, `xoxp-`, `xoxa-`, `xoxr-`, `xoxs-`,
        // app-level `xapp-` (api.slack.com, "Token types"); incoming webhook URLs.
        Pattern {
            kind: "slack_token",
            regex: r"\b(?:xox[abprs]|xapp)-[0-9A-Za-z-]{10,}",
        },
        Pattern {
            kind: "slack_webhook",
            regex: r"https://hooks\.slack\.com/services/[A-Za-z0-9/_-]+",
        },
        // Stripe: secret and restricted keys `sk_live_`, `sk_test_`, `rk_live_`, `rk_test_`
        // (docs.stripe.com, "API keys"); publishable `pk_` keys are public.
        Pattern {
            kind: "stripe_key",
            regex: r"\b[rs]k_(?:live|test)_[0-9A-Za-z]{16,}",
        },
        // npm access tokens: `npm_` + 36 characters (docs.npmjs.com, "About access tokens").
        Pattern {
            kind: "npm_token",
            regex: r"\bnpm_[A-Za-z0-9]{36}\b",
        },
        // PyPI API tokens: `pypi-` + a macaroon whose base64 starts `AgEIcHlwaS5vcmc`
        // (pypi.org/help, "API tokens").
        Pattern {
            kind: "pypi_token",
            regex: r"\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{20,}",
        },
        // Hugging Face user access tokens: `hf_` + 34 or more characters
        // (huggingface.co/docs, "User access tokens").
        Pattern {
            kind: "huggingface_token",
            regex: r"\bhf_[A-Za-z0-9]{30,}\b",
        },
        // JSON Web Tokens (RFC 7519): three base64url parts, header and payload JSON
        // objects (`eyJ` is `{"`).
        Pattern {
            kind: "jwt",
            regex: r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
        },
        // HTTP credentials (RFC 9110 `Authorization`, RFC 6750 bearer tokens).
        Pattern {
            kind: "authorization",
            regex: r"(?i)authorization\s*:\s*(?:(?:bearer|basic|token|bot|digest)\s+)?(?P<secret>[^\s\x22\x27\\]{8,})",
        },
        Pattern {
            kind: "bearer_token",
            regex: r"(?i)bearer\s+(?P<secret>[A-Za-z0-9._~+/=-]{8,})",
        },
        // Credentials in a URL's userinfo (RFC 3986): the password.
        Pattern {
            kind: "url_password",
            regex: r"://[^/\s:@\x22\x27\\]+:(?P<secret>[^@/\s\x22\x27\\]+)@",
        },
    ]
}

/// The generic forms: an environment assignment, a `--flag value` pair or a `"field":
/// "value"` whose name says it holds a secret. Each begins at the word that says so
/// (what comes before it, `DB_` or `--`, is not replaced anyway), so that the regex
/// engine can look for those words first rather than try every position.
pub(super) fn named() -> Vec<(&'static str, String)> {
    vec![
        (
            "secret_flag",
            format!(
                r"(?i)-{SECRET_NAME}[a-z0-9-]*(?:=|\s+)(?P<secret>\x27[^\x27\x22\\]*\x27|[^\s\x22\x27\\-][^\s\x22\x27\\]*)"
            ),
        ),
        (
            "secret_assignment",
            format!(
                r#"(?i){SECRET_NAME}[A-Z0-9_]*=(?:\x27(?P<secret>[^\x27]*)\x27|"(?P<quoted>[^"\\]*)"|(?P<bare>[^\s"\x27\\;&|)]+))"#
            ),
        ),
        (
            "secret_field",
            format!(r#"(?i){SECRET_NAME}[a-z0-9_-]*\\?"\s*:\s*\\?"(?P<secret>[^"\\]+)\\?""#),
        ),
    ]
}

/// Whether an object key names a secret (its string value is redacted whole).
pub(super) fn secret_key() -> String {
    format!(r"(?i)^[a-z0-9_-]*{SECRET_NAME}[a-z0-9_-]*$")
}
