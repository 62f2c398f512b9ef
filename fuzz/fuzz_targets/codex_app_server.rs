//! The codex_app_server adapter's line parser, through the pipeline, over arbitrary bytes.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    toolnorm_fuzz::normalize(Some(toolnorm_adapters::Dialect::CodexAppServer), data);
});
