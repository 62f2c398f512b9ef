//! The checked-in provider reference is what the dialect table and the rules files give,
//! and the links of the book and the README lead somewhere (as `toolnorm-docgen --check`).

#[test]
fn the_book_is_up_to_date_and_its_links_lead_somewhere() {
    let root = toolnorm_docgen::repository_root();
    match toolnorm_docgen::check(&root) {
        Ok(links) => assert!(links > 20, "only {links} links followed"),
        Err(error) => panic!("{error}"),
    }
}
