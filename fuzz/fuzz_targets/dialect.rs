//! One dialect's adapter, through the pipeline, over arbitrary bytes. The dialect is
//! named by `TOOLNORM_FUZZ_DIALECT` (a name of the dialect table, as `--provider`
//! takes it); `scripts/fuzz.sh` runs this target once per registered dialect.
#![no_main]

use std::sync::OnceLock;

use toolnorm_adapters::Dialect;

fn dialect() -> Dialect {
    static DIALECT: OnceLock<Dialect> = OnceLock::new();
    *DIALECT.get_or_init(|| {
        let name = std::env::var("TOOLNORM_FUZZ_DIALECT").unwrap_or_default();
        Dialect::from_name(&name).unwrap_or_else(|| {
            let names: Vec<&str> = Dialect::all().map(Dialect::as_str).collect();
            panic!("TOOLNORM_FUZZ_DIALECT must be one of {names:?}, not {name:?}")
        })
    })
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    toolnorm_fuzz::normalize(Some(dialect()), data);
});
