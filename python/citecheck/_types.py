"""The shapes of requests and answers, as TypedDicts: plain dicts at run time.

Field names and shapes are the contract's (contracts/citation-batch-check@1.0.0)
and explain.schema.json's, as js/index.d.ts has them; every position counts
Unicode code points.
"""

from __future__ import annotations

from typing import Any, Dict, List, Literal, Optional, TypedDict, Union

# ---- The request ---------------------------------------------------------


class Source(TypedDict):
    source_id: str
    version: str
    text: str


class TextPositionSelector(TypedDict):
    type: Literal["TextPositionSelector"]
    start: int
    end: int


class _TextQuoteSelector(TypedDict):
    type: Literal["TextQuoteSelector"]
    exact: str


class TextQuoteSelector(_TextQuoteSelector, total=False):
    prefix: str
    suffix: str


class PositionCitation(TypedDict):
    citation_id: str
    source_id: str
    version: str
    selector: TextPositionSelector
    quote: str


class _QuoteCitation(TypedDict):
    citation_id: str
    source_id: str
    version: str
    selector: TextQuoteSelector


class QuoteCitation(_QuoteCitation, total=False):
    claimed_start: int


Citation = Union[PositionCitation, QuoteCitation]


class Request(TypedDict):
    sources: List[Source]
    citations: List[Citation]


# ---- The answer ------------------------------------------------------------

Reason = Literal[
    "unknown_source", "version_mismatch", "span_reversed", "span_out_of_range", "quote_mismatch",
    "exact_not_found", "prefix_mismatch", "suffix_mismatch", "ambiguous_anchor", "position_mismatch",
]

SelectorType = Literal["TextPositionSelector", "TextQuoteSelector"]


class PositionDetail(TypedDict):
    """The detail of a failing position citation."""

    field: Literal["source_id", "version", "start", "end", "quote"]
    available_versions: Optional[List[str]]
    start: Optional[int]
    end: Optional[int]
    text_length: Optional[int]
    quote_offset: Optional[int]
    source_offset: Optional[int]
    expected_char: Optional[str]
    claimed_char: Optional[str]


class QuoteDetail(TypedDict):
    """The detail of a failing quote citation."""

    field: Literal["source_id", "version", "exact", "prefix", "suffix", "claimed_start"]
    available_versions: Optional[List[str]]
    exact_matches: Optional[int]
    prefix_matches: Optional[int]
    full_matches: Optional[int]
    match_starts: Optional[List[int]]
    claimed_start: Optional[int]
    resolved_start: Optional[int]
    observed: Optional[str]


Detail = Union[PositionDetail, QuoteDetail]


class Discrepancy(TypedDict):
    citation_index: int
    citation_id: str
    selector_type: SelectorType
    detail: Detail


class Result(TypedDict):
    """The contract's result: what check returns."""

    valid: bool
    reason: Optional[Reason]
    first_discrepancy: Optional[Discrepancy]
    citations_checked: int
    authenticity_checked: Literal[False]
    reference_version: str


ErrorCode = Literal[
    "invalid_input", "limit_exceeded", "not_found", "method_not_allowed", "unsupported_media_type",
    "overloaded", "usage", "unavailable", "internal",
]


class _ErrorObject(TypedDict):
    code: ErrorCode
    message: str
    path: str


class ErrorObject(_ErrorObject, total=False):
    """A refusal; path is an RFC 6901 pointer, "" for the body as a whole."""

    limit: str
    max: int
    actual: int


class ResultEnvelope(TypedDict):
    result: Result


class ErrorEnvelope(TypedDict):
    error: ErrorObject


Envelope = Union[ResultEnvelope, ErrorEnvelope]


class CitationOutcome(TypedDict):
    citation_index: int
    citation_id: str
    selector_type: SelectorType
    valid: bool
    reason: Optional[Reason]
    detail: Optional[Detail]


class AllResult(TypedDict):
    """What check_all returns: every citation's outcome."""

    valid: bool
    citations_checked: int
    citations_failed: int
    citations: List[CitationOutcome]
    authenticity_checked: Literal[False]
    reference_version: str


class AllResultEnvelope(TypedDict):
    all: AllResult


AllEnvelope = Union[AllResultEnvelope, ErrorEnvelope]

FindingKind = Literal["elsewhere", "offset_units", "normalized", "elided", "disambiguate", "partial"]
Fold = Literal["whitespace", "nfc", "nfkc", "typography", "case"]


class ElsewhereFinding(TypedDict):
    """The quote is at another place in the source."""

    kind: Literal["elsewhere"]
    start: int
    end: int
    occurrences: int


class OffsetUnitsFinding(TypedDict):
    """The position holds when counted in UTF-16 units or bytes."""

    kind: Literal["offset_units"]
    start: int
    end: int
    units: Literal["utf16", "utf8"]


class NormalizedFinding(TypedDict):
    """The quote holds under these folds; source_text is what the source has."""

    kind: Literal["normalized"]
    start: int
    end: int
    folds: List[Fold]
    source_text: str


class Span(TypedDict):
    start: int
    end: int


class _ElidedFinding(TypedDict):
    kind: Literal["elided"]
    start: int
    end: int
    parts: List[Span]
    source_text: str


class ElidedFinding(_ElidedFinding, total=False):
    """The quote holds with passages left out, between its ellipses."""

    folds: List[Fold]


class _DisambiguateFinding(TypedDict):
    kind: Literal["disambiguate"]
    start: int
    end: int


class DisambiguateFinding(_DisambiguateFinding, total=False):
    """A prefix or suffix that picks one of several places."""

    prefix: str
    suffix: str


class _PartialFinding(TypedDict):
    kind: Literal["partial"]
    start: int
    end: int
    length: int


class PartialFinding(_PartialFinding, total=False):
    """The longest part of the quote found, or what the work budget left unsearched."""

    not_searched: List[FindingKind]


Finding = Union[ElsewhereFinding, OffsetUnitsFinding, NormalizedFinding, ElidedFinding, DisambiguateFinding, PartialFinding]


class ExplainedCitation(CitationOutcome):
    findings: List[Finding]
    fix: Optional[Citation]


class Explanation(TypedDict):
    """What explain returns: every citation's outcome, findings and fix."""

    valid: bool
    citations_checked: int
    citations_failed: int
    citations: List[ExplainedCitation]
    authenticity_checked: Literal[False]
    reference_version: str


class ExplanationEnvelope(TypedDict):
    all: Explanation


ExplainEnvelope = Union[ExplanationEnvelope, ErrorEnvelope]


class _AnnotationsNotice(TypedDict):
    kind: Literal["one_page", "targets_name_no_source", "sources_not_supplied"]
    message: str


class AnnotationsNotice(_AnnotationsNotice, total=False):
    """What the CLI's summary says of an annotations run beside its counts."""

    next: str
    total: int
    here: int
    targets: int
    sources: List[Dict[str, Any]]


class _AnnotationSource(TypedDict):
    text: str


class AnnotationSource(_AnnotationSource, total=False):
    """A source of annotations with the version reported beside its targets."""

    version: str
