//! Deterministic rewrites applied to the pinned schemas before typify sees
//! them. Each step fixes one construct that typify 0.8 cannot take as it is,
//! or one place where the official schema disagrees with what the CLI sends.
//! The pinned files in `schemas/` are never edited; these steps run in memory.
//!
//! Each source lists the steps it takes, in the order they run, in
//! [`crate::sources`]; [`Step::apply`] runs one (`step.rs`). The steps, in
//! the order [`Step`] declares them:
//!
//! 1. [`rewrite_refs_to_definitions`] (`refs.rs`): OpenAPI and 2020-12
//!    references become `#/definitions/X`, the only form typify resolves.
//! 2. [`drop_string_patterns`] (`validation.rs`): prefix-only id patterns
//!    would each become a validating `regress` newtype.
//! 3. [`drop_additional_properties_false`] (`validation.rs`): it becomes
//!    `deny_unknown_fields`, so an upstream field would break parsing.
//! 4. [`rename_colliding_definitions`] (`naming.rs`): `session.status` and
//!    `SessionStatus` would be one Rust name.
//! 5. [`hoist_parent_properties`] (`unions.rs`): properties beside a `oneOf`
//!    make typify flatten them into untagged, partly uninhabited variants.
//! 6. [`const_to_enum`] (`tags.rs`): typify ignores `const`, so `type` tags
//!    discriminate nothing.
//! 7. [`collapse_tuple_unions`] (`ts_artifacts.rs`): `minItems`/`maxItems`
//!    tuples would become one tuple type per length.
//! 8. [`any_of_to_one_of`] (`unions.rs`): typify reads a non-null `anyOf` as
//!    "any subset"; a TS union means "exactly one".
//! 9. [`nullable_not_required`] (`nullable.rs`): TS `x: T | null` is required,
//!    but the CLIs omit such fields.
//! 10. [`order_untagged_variants`] (`unions.rs`): an untagged enum takes the
//!     first variant that fits, so the most specific must come first.
//! 11. [`fill_empty_mapped_properties`] (`ts_artifacts.rs`): `NonNullable<…>`
//!     mapped types come out as empty objects.
//! 12. [`integer_overrides`] (`integers.rs`): TS has only `number`, so
//!     counts and sizes would be `f64`; by path.
//! 13. [`number_to_integer_by_name`] (`integers.rs`): the same, by property
//!     name anywhere in the definitions.
//! 14. [`optional_properties`] (`nullable.rs`): fields the schema requires but
//!     the CLI does not always send.
//! 15. [`title_colliding_inline_types`] (`naming.rs`): an inline type whose
//!     derived name is also a definition's would be emitted twice.
//! 16. [`apply_patches`] (`patches.rs`): documented additions for what the CLI
//!     sends beyond its schema.
//! 17. [`make_opaque`] (`opaque.rs`): large subtrees the normalizer never reads
//!     stay `serde_json::Value`.
//! 18. [`title_union_members_by_tag`] (`naming.rs`): inline members would be
//!     named `Variant0`, `Variant1`, ….
//! 19. [`title_member_inline_properties`] (`naming.rs`): typify silently
//!     merges same-named inline types of different union members.
//!
//! Order matters where one step reads what another writes: [`const_to_enum`]
//! runs before the steps that look for tags (single-value `enum`s), and
//! [`any_of_to_one_of`] before those that read `oneOf`; a patch whose schema
//! uses `const` runs before [`const_to_enum`]. `walk.rs` holds the traversal
//! the steps share.

mod integers;
mod naming;
mod nullable;
mod opaque;
mod patches;
mod refs;
mod step;
mod tags;
mod ts_artifacts;
mod unions;
mod validation;
mod walk;

pub use integers::{integer_overrides, number_to_integer_by_name};
pub use naming::{
    pascal_name, rename_colliding_definitions, title_colliding_inline_types,
    title_member_inline_properties, title_union_members_by_tag,
};
pub use nullable::{admits_null, nullable_not_required, optional_properties};
pub use opaque::make_opaque;
pub use patches::{Patch, apply_patches};
pub use refs::rewrite_refs_to_definitions;
pub use step::Step;
pub use tags::const_to_enum;
pub use ts_artifacts::{collapse_tuple_unions, deprecated_as_flag, fill_empty_mapped_properties};
pub use unions::{any_of_to_one_of, hoist_parent_properties, order_untagged_variants};
pub use validation::{drop_additional_properties_false, drop_string_patterns};
pub use walk::walk_schemas;
