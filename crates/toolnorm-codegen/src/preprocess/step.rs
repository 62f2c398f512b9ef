//! The step list and the driver: which rewrites exist, the name each one
//! has in the banner of generated files, and how one is applied.

use super::{
    Patch, any_of_to_one_of, apply_patches, collapse_tuple_unions, const_to_enum,
    deprecated_as_flag, drop_additional_properties_false, drop_string_patterns,
    fill_empty_mapped_properties, hoist_parent_properties, integer_overrides, make_opaque,
    nullable_not_required, number_to_integer_by_name, optional_properties, order_untagged_variants,
    rename_colliding_definitions, rewrite_refs_to_definitions, title_colliding_inline_types,
    title_member_inline_properties, title_union_members_by_tag,
};
use crate::schema_doc::Defs;

/// One preprocessing step, as listed per source in [`crate::sources`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// [`rewrite_refs_to_definitions`].
    RewriteRefs,
    /// [`drop_string_patterns`].
    DropPatterns,
    /// [`drop_additional_properties_false`].
    DropAdditionalPropertiesFalse,
    /// [`rename_colliding_definitions`].
    RenameCollisions,
    /// [`hoist_parent_properties`] on the named definition.
    HoistParentProperties(&'static str),
    /// [`const_to_enum`].
    ConstToEnum,
    /// [`collapse_tuple_unions`].
    CollapseTuples,
    /// [`any_of_to_one_of`].
    AnyOfToOneOf,
    /// [`nullable_not_required`].
    NullableNotRequired,
    /// [`order_untagged_variants`].
    OrderUntaggedVariants,
    /// [`fill_empty_mapped_properties`]: `(target, source)` definitions.
    FillEmptyMapped(&'static str, &'static str),
    /// [`integer_overrides`] on `Definition.property[.property…]` paths.
    IntegerOverrides(&'static [&'static str]),
    /// [`number_to_integer_by_name`] on property names.
    IntegerByPropertyName(&'static [&'static str]),
    /// [`optional_properties`] on `Definition.property` paths.
    OptionalProperties(&'static [&'static str]),
    /// [`title_colliding_inline_types`].
    TitleInlineCollisions,
    /// [`apply_patches`]: documented additions for what the CLI really sends.
    Patches(&'static [Patch]),
    /// [`make_opaque`] on the named definitions.
    Opaque(&'static [&'static str]),
    /// [`title_union_members_by_tag`].
    TitleMembersByTag,
    /// [`title_member_inline_properties`].
    TitleMemberProperties,
    /// [`deprecated_as_flag`].
    DeprecatedAsFlag,
}

impl Step {
    /// The step's function name, used in the banner of generated files.
    pub fn name(&self) -> &'static str {
        match self {
            Step::RewriteRefs => "rewrite_refs_to_definitions",
            Step::DropPatterns => "drop_string_patterns",
            Step::DropAdditionalPropertiesFalse => "drop_additional_properties_false",
            Step::RenameCollisions => "rename_colliding_definitions",
            Step::HoistParentProperties(_) => "hoist_parent_properties",
            Step::ConstToEnum => "const_to_enum",
            Step::CollapseTuples => "collapse_tuple_unions",
            Step::AnyOfToOneOf => "any_of_to_one_of",
            Step::NullableNotRequired => "nullable_not_required",
            Step::OrderUntaggedVariants => "order_untagged_variants",
            Step::FillEmptyMapped(..) => "fill_empty_mapped_properties",
            Step::IntegerOverrides(_) => "integer_overrides",
            Step::IntegerByPropertyName(_) => "number_to_integer_by_name",
            Step::OptionalProperties(_) => "optional_properties",
            Step::TitleInlineCollisions => "title_colliding_inline_types",
            Step::Patches(_) => "apply_patches",
            Step::Opaque(_) => "make_opaque",
            Step::TitleMembersByTag => "title_union_members_by_tag",
            Step::TitleMemberProperties => "title_member_inline_properties",
            Step::DeprecatedAsFlag => "deprecated_as_flag",
        }
    }

    /// Applies the step to `defs`.
    pub fn apply(&self, defs: &mut Defs) {
        match *self {
            Step::RewriteRefs => rewrite_refs_to_definitions(defs),
            Step::DropPatterns => drop_string_patterns(defs),
            Step::DropAdditionalPropertiesFalse => drop_additional_properties_false(defs),
            Step::RenameCollisions => rename_colliding_definitions(defs),
            Step::HoistParentProperties(name) => hoist_parent_properties(defs, name),
            Step::ConstToEnum => const_to_enum(defs),
            Step::CollapseTuples => collapse_tuple_unions(defs),
            Step::AnyOfToOneOf => any_of_to_one_of(defs),
            Step::NullableNotRequired => nullable_not_required(defs),
            Step::OrderUntaggedVariants => order_untagged_variants(defs),
            Step::FillEmptyMapped(target, source) => {
                fill_empty_mapped_properties(defs, target, source)
            }
            Step::IntegerOverrides(paths) => integer_overrides(defs, paths),
            Step::IntegerByPropertyName(names) => number_to_integer_by_name(defs, names),
            Step::OptionalProperties(paths) => optional_properties(defs, paths),
            Step::TitleInlineCollisions => title_colliding_inline_types(defs),
            Step::Patches(patches) => apply_patches(defs, patches),
            Step::Opaque(names) => make_opaque(defs, names),
            Step::TitleMembersByTag => title_union_members_by_tag(defs),
            Step::TitleMemberProperties => title_member_inline_properties(defs),
            Step::DeprecatedAsFlag => deprecated_as_flag(defs),
        }
    }
}

/// Test support: `input` is an object of definitions; returns them, as an
/// object, after `step`.
#[cfg(test)]
pub(super) fn run(step: Step, input: serde_json::Value) -> serde_json::Value {
    let mut d: Defs = input
        .as_object()
        .map(|m| m.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
        .unwrap_or_default();
    step.apply(&mut d);
    serde_json::Value::Object(d.into_iter().collect())
}
