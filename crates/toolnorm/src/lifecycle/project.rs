//! The projection of a call to the canonical part: owned ([`ToolCall::to_part`]) or
//! borrowed ([`ToolCall::part_view`]).

use crate::payload::Payload;
use serde::ser::{Serialize, SerializeStruct, Serializer};

use super::call::ToolCall;
use super::metadata_view::MetadataView;
use super::output::StreamedOutput;
use super::state::{CallState, Complete, Failed, Running, Started};
use crate::part::{NormalizedToolPart, Timing, ToolError, ToolKind, ToolState};

impl<S: CallState> ToolCall<S> {
    /// Projects the call to the canonical part.
    pub fn to_part(&self) -> NormalizedToolPart
    where
        S: Project,
    {
        self.part_view().into()
    }

    /// The canonical part, borrowed from the call: serializes exactly as
    /// [`to_part`](Self::to_part) does, without copying input, output, metadata, the
    /// streamed output or the approval.
    pub fn part_view(&self) -> PartView<'_>
    where
        S: Project,
    {
        let common = &self.common;
        let mut metadata = MetadataView::of(Some(&common.metadata));
        metadata.with_approval(common.approval.as_deref());
        let mut view = PartView {
            id: &common.id,
            name: &common.name,
            kind: common.kind,
            title: &common.title,
            input: &common.input,
            output: None,
            error: None,
            state: S::STATE,
            timing: (!common.timing.is_empty()).then_some(&common.timing),
            metadata,
        };
        S::view(&self.data, &mut view);
        view
    }
}

/// A [`NormalizedToolPart`] borrowed from a call ([`ToolCall::part_view`]), for writing
/// it out without a copy; it serializes to the same JSON, field by field as
/// [`fields`](Self::fields) gives them.
#[derive(Debug)]
pub struct PartView<'a> {
    id: &'a str,
    name: &'a str,
    kind: ToolKind,
    title: &'a str,
    input: &'a Payload,
    output: Option<&'a Payload>,
    error: Option<&'a ToolError>,
    state: ToolState,
    timing: Option<&'a Timing>,
    metadata: MetadataView<'a>,
}

/// One field of a part's JSON, borrowed from a [`PartView`].
#[derive(Debug, Clone, Copy)]
pub enum PartField<'a> {
    /// `id`.
    Id(&'a str),
    /// `name`.
    Name(&'a str),
    /// `kind`.
    Kind(ToolKind),
    /// `title`.
    Title(&'a str),
    /// `input`.
    Input(&'a Payload),
    /// `output`, of a complete call.
    Output(&'a Payload),
    /// `error`, of a failed call.
    Error(&'a ToolError),
    /// `state`.
    State(ToolState),
    /// `timing`, when any is known.
    Timing(&'a Timing),
    /// `metadata`, when there is any.
    Metadata(MetadataView<'a>),
}

/// [`PartField::key`] and [`PartField::json_key`], from one list of the fields' keys.
macro_rules! part_field_keys {
    ($($field:ident: $key:literal),* $(,)?) => {
        impl PartField<'_> {
            /// The field's key in the part's JSON.
            pub fn key(&self) -> &'static str {
                match self {
                    $(PartField::$field(_) => $key,)*
                }
            }

            /// The key as JSON text with the colon after it (`"id":`): what a writer of
            /// the part's JSON writes before the value.
            pub fn json_key(&self) -> &'static str {
                match self {
                    $(PartField::$field(_) => concat!("\"", $key, "\":"),)*
                }
            }
        }
    };
}

part_field_keys!(
    Id: "id",
    Name: "name",
    Kind: "kind",
    Title: "title",
    Input: "input",
    Output: "output",
    Error: "error",
    State: "state",
    Timing: "timing",
    Metadata: "metadata",
);

/// The field's value.
impl Serialize for PartField<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            PartField::Id(text) | PartField::Name(text) | PartField::Title(text) => {
                text.serialize(serializer)
            }
            PartField::Kind(kind) => kind.serialize(serializer),
            PartField::Input(payload) | PartField::Output(payload) => payload.serialize(serializer),
            PartField::Error(error) => error.serialize(serializer),
            PartField::State(state) => state.serialize(serializer),
            PartField::Timing(timing) => timing.serialize(serializer),
            PartField::Metadata(metadata) => metadata.serialize(serializer),
        }
    }
}

/// The part's JSON object: its [`fields`](PartView::fields), in order.
impl Serialize for PartView<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut object = serializer.serialize_struct("PartView", self.fields().count())?;
        for field in self.fields() {
            object.serialize_field(field.key(), &field)?;
        }
        object.end()
    }
}

impl<'a> PartView<'a> {
    /// The fields of the part's JSON, in their order, without the absent ones (an
    /// output, error or timing that is not there, empty metadata): the one description
    /// of its layout, which its `Serialize` and other writers follow.
    pub fn fields(&self) -> impl Iterator<Item = PartField<'a>> {
        [
            Some(PartField::Id(self.id)),
            Some(PartField::Name(self.name)),
            Some(PartField::Kind(self.kind)),
            Some(PartField::Title(self.title)),
            Some(PartField::Input(self.input)),
            self.output.map(PartField::Output),
            self.error.map(PartField::Error),
            Some(PartField::State(self.state)),
            self.timing.map(PartField::Timing),
            (!self.metadata.is_empty()).then_some(PartField::Metadata(self.metadata)),
        ]
        .into_iter()
        .flatten()
    }

    /// The call id.
    pub fn id(&self) -> &'a str {
        self.id
    }

    /// The provider's tool name.
    pub fn name(&self) -> &'a str {
        self.name
    }

    /// The kind.
    pub fn kind(&self) -> ToolKind {
        self.kind
    }

    /// The title.
    pub fn title(&self) -> &'a str {
        self.title
    }

    /// The input.
    pub fn input(&self) -> &'a Payload {
        self.input
    }

    /// The output of a complete call.
    pub fn output(&self) -> Option<&'a Payload> {
        self.output
    }

    /// The error of a failed call.
    pub fn error(&self) -> Option<&'a ToolError> {
        self.error
    }

    /// The wire state.
    pub fn state(&self) -> ToolState {
        self.state
    }

    /// Start, end and duration, when any is known.
    pub fn timing(&self) -> Option<&'a Timing> {
        self.timing
    }

    /// The metadata (for a running call with streamed output, with the partial output
    /// and its truncation flags; with the approval, once one was requested).
    pub fn metadata(&self) -> MetadataView<'a> {
        self.metadata
    }
}

/// The owned part: a copy of everything the view borrows.
impl From<PartView<'_>> for NormalizedToolPart {
    fn from(view: PartView<'_>) -> Self {
        NormalizedToolPart {
            id: view.id.to_owned(),
            name: view.name.to_owned(),
            kind: view.kind,
            title: view.title.to_owned(),
            input: view.input.clone(),
            output: view.output.cloned(),
            error: view.error.cloned(),
            state: view.state,
            timing: view.timing.cloned(),
            metadata: (!view.metadata.is_empty()).then(|| view.metadata.to_object()),
        }
    }
}

/// How a state's own data shows in the projected part. Implemented for all four states.
pub trait Project: CallState {
    #[doc(hidden)]
    fn view<'a>(data: &'a Self::Data, view: &mut PartView<'a>);
}

impl Project for Started {
    fn view<'a>(_: &'a (), _: &mut PartView<'a>) {}
}

impl Project for Running {
    fn view<'a>(streamed: &'a StreamedOutput, view: &mut PartView<'a>) {
        view.metadata.with_streamed(streamed);
    }
}

impl Project for Complete {
    fn view<'a>(output: &'a Option<Payload>, view: &mut PartView<'a>) {
        view.output = output.as_ref();
    }
}

impl Project for Failed {
    fn view<'a>(error: &'a ToolError, view: &mut PartView<'a>) {
        view.error = Some(error);
    }
}
