// Types of the citecheck package (docs/javascript.md). Field names and
// shapes are the contract's (contracts/citation-batch-check@1.0.0) and
// explain.schema.json's; every position counts Unicode code points.

/** The contract's max_input_bytes: a body over it is refused as the CLI refuses it. */
export const MAX_INPUT_BYTES: 1048576;

// ---- The request -------------------------------------------------------

export interface Source {
  source_id: string;
  version: string;
  text: string;
}

export interface TextPositionSelector {
  type: 'TextPositionSelector';
  start: number;
  end: number;
}

export interface TextQuoteSelector {
  type: 'TextQuoteSelector';
  exact: string;
  prefix?: string;
  suffix?: string;
}

export interface PositionCitation {
  citation_id: string;
  source_id: string;
  version: string;
  selector: TextPositionSelector;
  quote: string;
}

export interface QuoteCitation {
  citation_id: string;
  source_id: string;
  version: string;
  selector: TextQuoteSelector;
  claimed_start?: number;
}

export type Citation = PositionCitation | QuoteCitation;

export interface Request {
  sources: Source[];
  citations: Citation[];
}

/** A body: the request's JSON as a string or its exact bytes, or the request as an object (sent as JSON.stringify writes it). */
export type Body = string | Uint8Array | ArrayBuffer | ArrayBufferView | Request | object;

// ---- The answer --------------------------------------------------------

export type Reason =
  | 'unknown_source' | 'version_mismatch' | 'span_reversed' | 'span_out_of_range' | 'quote_mismatch'
  | 'exact_not_found' | 'prefix_mismatch' | 'suffix_mismatch' | 'ambiguous_anchor' | 'position_mismatch';

export type SelectorType = 'TextPositionSelector' | 'TextQuoteSelector';

/** The detail of a failing position citation. */
export interface PositionDetail {
  field: 'source_id' | 'version' | 'start' | 'end' | 'quote';
  available_versions: string[] | null;
  start: number | null;
  end: number | null;
  text_length: number | null;
  quote_offset: number | null;
  source_offset: number | null;
  expected_char: string | null;
  claimed_char: string | null;
}

/** The detail of a failing quote citation. */
export interface QuoteDetail {
  field: 'source_id' | 'version' | 'exact' | 'prefix' | 'suffix' | 'claimed_start';
  available_versions: string[] | null;
  exact_matches: number | null;
  prefix_matches: number | null;
  full_matches: number | null;
  match_starts: number[] | null;
  claimed_start: number | null;
  resolved_start: number | null;
  observed: string | null;
}

export type Detail = PositionDetail | QuoteDetail;

export interface Discrepancy {
  citation_index: number;
  citation_id: string;
  selector_type: SelectorType;
  detail: Detail;
}

/** The contract's result. */
export interface Result {
  valid: boolean;
  reason: Reason | null;
  first_discrepancy: Discrepancy | null;
  citations_checked: number;
  authenticity_checked: false;
  reference_version: string;
}

export type ErrorCode =
  | 'invalid_input' | 'limit_exceeded' | 'not_found' | 'method_not_allowed' | 'unsupported_media_type'
  | 'overloaded' | 'usage' | 'unavailable' | 'internal';

/** A refusal: the body is not a valid request, or is over a limit. */
export interface ErrorObject {
  code: ErrorCode;
  message: string;
  /** RFC 6901 pointer to the value at fault; "" for the body as a whole. */
  path: string;
  limit?: string;
  max?: number;
  actual?: number;
}

export type Envelope = { result: Result; error?: never } | { error: ErrorObject; result?: never };

// ---- --all and --explain -----------------------------------------------

export interface CitationOutcome {
  citation_index: number;
  citation_id: string;
  selector_type: SelectorType;
  valid: boolean;
  reason: Reason | null;
  detail: Detail | null;
}

export interface AllResult {
  valid: boolean;
  citations_checked: number;
  citations_failed: number;
  citations: CitationOutcome[];
  authenticity_checked: false;
  reference_version: string;
}

export type AllEnvelope = { all: AllResult; error?: never } | { error: ErrorObject; all?: never };

export type FindingKind = 'elsewhere' | 'offset_units' | 'normalized' | 'elided' | 'disambiguate' | 'partial';
export type Fold = 'whitespace' | 'nfc' | 'nfkc' | 'typography' | 'case';

interface FindingBase { start: number; end: number }
/** The quote is at another place in the source. */
export interface ElsewhereFinding extends FindingBase { kind: 'elsewhere'; occurrences: number }
/** The position holds when counted in UTF-16 units or bytes. */
export interface OffsetUnitsFinding extends FindingBase { kind: 'offset_units'; units: 'utf16' | 'utf8' }
/** The quote holds under these folds; source_text is what the source has. */
export interface NormalizedFinding extends FindingBase { kind: 'normalized'; folds: Fold[]; source_text: string }
/** The quote holds with passages left out: the passages between the ellipses occur in order, at parts; folds (only when one was needed) are those under which each reads as its part. */
export interface ElidedFinding extends FindingBase { kind: 'elided'; parts: { start: number; end: number }[]; folds?: Fold[]; source_text: string }
/** A prefix or suffix that picks one of several places. */
export interface DisambiguateFinding extends FindingBase { kind: 'disambiguate'; prefix?: string; suffix?: string }
/** The longest part of the quote found, or what the work budget left unsearched. */
export interface PartialFinding extends FindingBase { kind: 'partial'; length: number; not_searched?: FindingKind[] }

export type Finding = ElsewhereFinding | OffsetUnitsFinding | NormalizedFinding | ElidedFinding | DisambiguateFinding | PartialFinding;

export interface ExplainedCitation extends CitationOutcome {
  findings: Finding[];
  /** The corrected citation, in the input's shape, or null. */
  fix: Citation | null;
}

export interface Explanation extends Omit<AllResult, 'citations'> {
  citations: ExplainedCitation[];
}

export type ExplainEnvelope = { all: Explanation; error?: never } | { error: ErrorObject; all?: never };

// ---- The functions -------------------------------------------------------

/**
 * Loads the engine. Under Node (and Deno, Bun) it reads the packaged
 * citecheck.wasm; in a browser it fetches it relative to the module. It
 * also takes the module's bytes, a Response (or its promise), a URL, or a
 * compiled WebAssembly.Module. Every other function is synchronous and
 * throws a CitecheckError until it has resolved.
 */
export function init(source?: BufferSource | Response | PromiseLike<Response> | URL | string | WebAssembly.Module): Promise<void>;

/**
 * Readies a loaded engine for a large first body: two checks of a
 * 128 KiB body of its own, yielding after each, so that V8 has optimised
 * the checking code before the first real check. Optional: init does not
 * call it. Rejects with a CitecheckError before init.
 */
export function warm(): Promise<void>;

/**
 * The exact body the HTTP execute route answers, as a string. A string
 * body is its UTF-8; a lone surrogate in it is written as the three bytes
 * it stands for, which are not UTF-8, so the answer is the invalid_input
 * refusal the Go engine gives those bytes. A call that fails in the
 * engine (out of memory) throws a CitecheckError, and the next call runs
 * on a new instance.
 */
export function checkRaw(body: Body): string;
/** checkRaw's answer as an object. */
export function check(body: Body): Envelope;
/** `citecheck run --all`'s line (without its newline). */
export function checkAllRaw(body: Body): string;
/** What `citecheck run --all` prints, as an object. */
export function checkAll(body: Body): AllEnvelope;
/** `citecheck run --explain`'s line (without its newline). */
export function explainRaw(body: Body): string;
/** What `citecheck run --explain` prints, as an object. */
export function explain(body: Body): ExplainEnvelope;

export interface AnnotationsOptions {
  /**
   * The text of each annotated document by its IRI, as the annotations'
   * target source names it: a plain object or a Map ("" is the text of
   * the targets that name no source). Anything else, or a member of the
   * wrong type, throws a TypeError whose code is 'invalid_input'.
   */
  sources?: Record<string, string | { text: string; version?: string }> | Map<string, string | { text: string; version?: string }>;
  /**
   * Called, once the lines are written (and before an error is thrown),
   * with each notice `citecheck annotations` gives on standard error
   * beside its counts; `message` is in the CLI's words.
   */
  onNotice?: (notice: AnnotationsNotice) => void;
}

/** What the CLI's summary says of an annotations run beside its counts. */
export type AnnotationsNotice =
  /** The export is one page of a collection: its next page, or its declared total and how many were here. */
  | { kind: 'one_page'; message: string; next?: string; total?: number; here?: number }
  /** Targets that name no source; sources[""] gives their text. */
  | { kind: 'targets_name_no_source'; message: string; targets: number }
  /** IRIs the targets name that sources does not hold, in IRI order, each with how many targets name it. */
  | { kind: 'sources_not_supplied'; message: string; sources: { iri: string; targets: number }[] };

/**
 * The JSON lines `citecheck annotations` writes for an export (W3C or
 * Hypothesis; one annotation, an array, a page or collection, JSON Lines
 * or a search response), one line an item, in input order. The export is
 * streamed: the engine holds the sources, a batch of 256 annotations and
 * the export's longest JSON token, never the export nor its lines whole.
 * A source's IRI, text or version with a lone surrogate is refused with a
 * CitecheckError whose code is 'invalid_input', as is an export that is not
 * JSON or not Unicode text (its .lines are those of the items before). One
 * U+FEFF at the start of a source's text is not text: it is dropped, as the
 * CLI drops a byte order mark at the start of a source file.
 */
export function annotations(exportText: string | Uint8Array | ArrayBuffer | object, options?: AnnotationsOptions): string;

export interface QuotesOptions {
  /** Each source's text by its id (what a marker names): a plain object or a Map. */
  sources?: Record<string, string> | Map<string, string>;
  /**
   * For an Anthropic Messages response (an Anthropic TypeScript SDK
   * Message, created or a stream's finalMessage()): the request it
   * answered, whose documents are the sources "0", "1", … (before sources).
   */
  request?: string | Uint8Array | ArrayBuffer | object;
  /** Give each failing quotation its findings' fix. */
  explain?: boolean;
}

/** The outcome of one quotation (docs/quotes.md). */
export type QuoteOutcome = 'no_source' | 'verbatim' | 'moved' | 'elsewhere' | 'near' | 'not_found' | 'not_checked';

/** One line of quotes' answer, parsed. */
export interface QuoteLine {
  index: number;
  line?: number;
  column?: number;
  block?: number;
  type?: string;
  quote: string;
  marker: string | null;
  source: string | null;
  outcome: QuoteOutcome;
  span?: { start: number; end: number };
  findings?: Finding[];
  fix?: { marker?: string; quote?: string; start_char_index?: number; end_char_index?: number; start_block_index?: number; end_block_index?: number };
  why?: string;
  limit?: { name: string; max: number; actual: number };
  /**
   * With explain, on every line that is not verbatim: the quote, why it
   * failed and the fix, in one or two sentences a model can correct
   * itself from; each piece of input it repeats cut to 100 code points.
   */
  message?: string;
}

/**
 * The JSON lines `citecheck quotes` prints for text: a report (Markdown or
 * plain text), a structured answer {citations: [{source_id, quote}]} or an
 * Anthropic Messages response, as a string, bytes or an object (sent as
 * JSON.stringify writes it). Input the command refuses throws a
 * CitecheckError with its message and code; arguments of the wrong type,
 * or neither sources nor a request, a TypeError.
 */
export function quotes(text: string | Uint8Array | ArrayBuffer | object, options: QuotesOptions): string;

/** What a Zod refinement is given: Zod 3's and 4's superRefine context. */
export interface RefinementContext {
  addIssue(issue: { code: 'custom'; message: string; path?: (string | number)[] }): void;
}

/**
 * A refinement for `.superRefine` (Zod 3 and 4) holding quotes verbatim
 * in sources: a quote string (against options.source, or every source), a
 * citation {source_id?, quote}, an array of citations, or an answer
 * {citations: [...]}. Each quote not verbatim gets one issue at its path,
 * its message the `message` of the quote's line (quotes with explain);
 * any other shape, a quote that is not a string or holds a lone
 * surrogate, or a source_id neither a string nor a safe integer, gets an
 * issue saying why. It never throws for the value; bad sources throw when
 * it is made, and are copied then.
 */
export function verbatimQuote(
  sources: Record<string, string> | Map<string, string>,
  options?: { source?: string },
): (value: unknown, ctx: RefinementContext) => void;

/**
 * An error of the package's use (init not awaited, an export that is not
 * JSON, a string that is not Unicode text) or a call the engine failed
 * (its cause the module's error; the next call runs on a new instance),
 * not a refusal.
 */
export class CitecheckError extends Error {
  /** From annotations and quotes: the lines written before the failure. */
  lines?: string;
  /**
   * 'invalid_input' for a source's IRI, text or version with a lone
   * surrogate, and for an annotations run refused (an export that is not
   * JSON or not Unicode text, sources named twice), for an object
   * argument JSON cannot write (NaN, ±Infinity, a BigInt, a cycle,
   * nesting past 1,000, a toJSON giving no JSON value) and an empty
   * source id; from quotes, the command's code for what it refuses;
   * 'internal' when the module failed on the call (out of memory, a
   * trap), which dropped its instance.
   */
  code?: string;
}
