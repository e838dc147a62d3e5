"""Checking a LangChain answer's quotes against the documents it was given (docs/frameworks.md#langchain).

LangChain's citations how-to has the model answer in the QuotedAnswer
shape, {answer, citations: [{source_id, quote}]}, through
with_structured_output, each source_id the position of a retrieved
Document in the prompt ("Source ID: 0", "Source ID: 1", …). check_answer
checks those quotes with citecheck.quotes, exactly; QuoteCheck is the
Runnable that does so in an LCEL chain, after the how-to's, passing its
output through with the outcome lines attached. No quote is rewritten or
dropped, and nothing is matched loosely. Needs langchain-core:
pip install 'citecheck-engine[langchain]'.
"""

from __future__ import annotations

import json
from typing import Any, Dict, List, Mapping, Optional, Sequence, Union

try:
    from langchain_core.documents import Document
    from langchain_core.messages import BaseMessage
    from langchain_core.runnables import RunnableConfig, RunnableSerializable
except ImportError as e:  # pragma: no cover - the tests import it with langchain-core
    raise ImportError("citecheck.langchain needs langchain-core: pip install 'citecheck-engine[langchain]'") from e

from . import quotes
from ._errors import CitecheckError
from ._values import WHY_EXCERPT, clip, shown, source_id, source_map

__all__ = ["QuoteCheck", "check_answer", "sources_of"]

#: Documents as the how-to's chain holds them (its "context"): LangChain
#: Documents or texts in a sequence, their ids their positions; or a
#: mapping of each id to its Document or text.
Documents = Union[Sequence[Union[Document, str]], Mapping[str, Union[Document, str]]]


def _text_of(sid: str, doc: Any) -> str:
    if isinstance(doc, Document):
        text: str = doc.page_content
        return text
    if isinstance(doc, str):
        return doc
    raise CitecheckError("invalid_input", f"source {shown(sid)} is neither a document nor a text: the context holds LangChain Documents or strings")


def sources_of(documents: Documents, *, id_key: Optional[str] = None) -> Dict[str, str]:
    """The sources citecheck.quotes takes for documents: each id mapped to its text (page_content).

    A sequence's ids are the documents' positions, "0", "1", …, as the
    how-to numbers them in the prompt; with id_key, each is the document's
    metadata[id_key] instead (a string, or an integer written in decimal),
    which every document must have, once. A mapping gives the ids itself.
    An id is a string that is not empty, or an integer from 0 to 2^53-1
    read as its decimal, as the engine reads a source_id: anything else,
    or two ids naming one source (1 and "1"), raises CitecheckError
    (invalid_input). Cost: linear in the number of documents.
    """
    if isinstance(documents, Mapping):
        return source_map(documents, "the documents", _text_of)
    if isinstance(documents, (str, bytes, Document)) or not isinstance(documents, Sequence):
        raise CitecheckError("invalid_input", "the documents are a list of LangChain Documents (or texts), or a dict of them by id")
    out: Dict[str, str] = {}
    for i, doc in enumerate(documents):
        sid = str(i)
        if id_key is not None:
            meta = doc.metadata if isinstance(doc, Document) else {}
            if id_key not in meta:
                raise CitecheckError("invalid_input", f"document {i} has no metadata[{shown(id_key)}] (a string or an integer) to be its source id")
            sid = source_id(meta[id_key], f"document {i}'s metadata[{shown(id_key)}]")
            if sid in out:
                raise CitecheckError("invalid_input", f"documents {list(out).index(sid)} and {i} have the same metadata[{shown(id_key)}], {shown(sid)}: a source id names one document")
        out[sid] = _text_of(sid, doc)
    return out


def _answer_value(answer: Any) -> Any:
    """The answer as quotes reads it: a Pydantic model or a dict (json mode, a TypedDict), as it is."""
    if isinstance(answer, Mapping) and "parsed" in answer and "raw" in answer:
        # with_structured_output(..., include_raw=True)
        if answer["parsed"] is None:
            raise CitecheckError("invalid_input", f"the model's answer could not be parsed into the schema, so it has no quotes to check: {clip(str(answer.get('parsing_error')), WHY_EXCERPT)}")
        answer = answer["parsed"]
    if answer is None:
        raise CitecheckError("invalid_input", "there is no answer (None): the model did not answer in the schema (with_structured_output gives None when it calls no tool of that name)")
    if isinstance(answer, BaseMessage):
        raise CitecheckError(
            "invalid_input",
            'the answer is a chat message, not a structured answer {"answer", "citations": [{"source_id", "quote"}]}: have the model answer with with_structured_output(QuotedAnswer)',
        )
    if isinstance(answer, Mapping) or callable(getattr(answer, "model_dump", None)):
        return answer
    raise CitecheckError(
        "invalid_input",
        'the answer is not a structured answer {"answer", "citations": [{"source_id", "quote"}]}: have the model answer with with_structured_output(QuotedAnswer)',
    )


def check_answer(answer: Any, documents: Documents, *, id_key: Optional[str] = None, explain: bool = True) -> List[Dict[str, Any]]:
    """The outcome of each quote of answer against documents: citecheck quotes' JSON lines, parsed, in order.

    answer is in the QuotedAnswer shape, {"citations": [{"source_id",
    "quote"}]} with other members its own: a Pydantic model, a dict (json
    mode, a TypedDict), or with_structured_output(include_raw=True)'s
    {"raw", "parsed", "parsing_error"}. A source_id names a document by
    its position (or its metadata[id_key]: sources_of); a quote without
    one may be in any document. Each line has the quote, its outcome
    (verbatim, elsewhere, near, not_found, no_source, not_checked) and,
    with explain (the default), the findings and the fix a model can
    correct itself from. An answer not of the shape, or no documents,
    raise CitecheckError. Cost: that of citecheck.quotes, linear in the
    answer and the documents.
    """
    sources = sources_of(documents, id_key=id_key)
    if not sources:
        raise CitecheckError("invalid_input", "there are no documents to check the quotes against: the context is empty")
    out = quotes(_answer_value(answer), sources=sources, explain=explain)
    return [json.loads(line) for line in out.splitlines()]


# Without langchain-core installed (python/test.sh's mypy) the base is Any.
class QuoteCheck(RunnableSerializable[Dict[str, Any], Dict[str, Any]]):  # type: ignore[misc, unused-ignore]
    """A Runnable that checks the quotes of the how-to chain's output and passes it through.

    Its input is a dict holding the answer (answer_key, "answer") and the
    documents it was given (context_key, "context"), as the how-to's
    RunnablePassthrough.assign(context=…).assign(answer=…) produces; its
    output is that dict with "quotes", check_answer's lines, and
    "verbatim", whether every quote is verbatim. Compose it last:
    chain | QuoteCheck().
    """

    answer_key: str = "answer"
    context_key: str = "context"
    id_key: Optional[str] = None
    explain: bool = True

    def invoke(self, input: Dict[str, Any], config: Optional[RunnableConfig] = None, **kwargs: Any) -> Dict[str, Any]:
        out: Dict[str, Any] = self._call_with_config(self._check, input, config, run_type="parser")
        return out

    def _check(self, input: Dict[str, Any]) -> Dict[str, Any]:
        if not isinstance(input, Mapping):
            raise CitecheckError("invalid_input", f'QuoteCheck takes a dict holding "{self.answer_key}" and "{self.context_key}", as the how-to chain gives')
        for key in (self.answer_key, self.context_key):
            if key not in input:
                raise CitecheckError("invalid_input", f'QuoteCheck\'s input has no "{key}": it takes a dict holding "{self.answer_key}" and "{self.context_key}"')
        lines = check_answer(input[self.answer_key], input[self.context_key], id_key=self.id_key, explain=self.explain)
        return {**input, "quotes": lines, "verbatim": all(line["outcome"] == "verbatim" for line in lines)}
