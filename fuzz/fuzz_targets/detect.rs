//! Dialect auto-detection (and whichever adapter it picks) over arbitrary bytes.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    for line in data.split(|&byte| byte == b'\n') {
        let _ = toolnorm_adapters::detect_line(line);
    }
    toolnorm_fuzz::normalize(None, data);
});
