"""Checking the quotations of a LlamaIndex answer against its source nodes (docs/frameworks.md#llamaindex).

CitationQueryEngine shows the model numbered chunks ("Source 1:", "Source
2:", …) and the model cites them as [1], [2]; check_response reads the
answer's quotations as `citecheck quotes` reads a report (a quotation in
marks or a blockquote, the [N] after it naming its source) and checks each
against the chunk it names, exactly. sources gives those chunks as the
sources the check uses. Needs llama-index-core: pip install
'citecheck-engine[llamaindex]'.
"""

from __future__ import annotations

import json
import re
from typing import Any, Dict, List, Mapping, Union

try:
    from llama_index.core.base.response.schema import AsyncStreamingResponse, PydanticResponse, Response, StreamingResponse
    from llama_index.core.schema import MetadataMode
except ImportError as e:  # pragma: no cover - the tests import it with the extra installed
    raise ImportError("citecheck.llamaindex needs llama-index-core: pip install 'citecheck-engine[llamaindex]'") from e

from . import quotes
from ._errors import CitecheckError
from ._values import plain

__all__ = ["check_response", "sources"]

# What CitationQueryEngine._create_citation_nodes writes around each chunk:
# f"Source {n}:\n{chunk}\n", n counting the response's nodes from 1.
_LABEL = re.compile(r"Source ([1-9][0-9]*):\n")

AnyResponse = Union[Response, StreamingResponse, PydanticResponse]


def sources(response: AnyResponse) -> Dict[str, str]:
    """The response's source nodes as the check's sources: each chunk's text by the number the model saw.

    A node whose text is "Source N:\\n{chunk}\\n" (what CitationQueryEngine
    writes) is source "N" with the text {chunk}: the label and the newline
    the engine adds are not the document's words, and nothing else is taken
    off. Any other node is numbered by its place in source_nodes, from 1, its
    text whole. Metadata is not part of a source (the node's text under
    MetadataMode.NONE). Linear in the nodes' text. Two nodes with one number
    raise CitecheckError (invalid_input).
    """
    nodes = getattr(response, "source_nodes", None)
    if not isinstance(nodes, (list, tuple)):
        raise CitecheckError("invalid_input", "check a LlamaIndex Response, StreamingResponse or PydanticResponse: this has no source_nodes list")
    out: Dict[str, str] = {}
    for place, scored in enumerate(nodes, start=1):
        node = getattr(scored, "node", scored)
        get_content = getattr(node, "get_content", None)
        text = get_content(metadata_mode=MetadataMode.NONE) if callable(get_content) else None
        if not isinstance(text, str):
            raise CitecheckError("invalid_input", f"source node {place} has no text to check quotations against")
        label = _LABEL.match(text)
        if label is not None and len(text) > label.end() and text.endswith("\n"):
            sid, body = label.group(1), text[label.end() : -1]
        else:
            sid, body = str(place), text
        if sid in out:
            raise CitecheckError("invalid_input", f"two source nodes are numbered {sid}: a marker [{sid}] would name either")
        out[sid] = body
    return out


def _text(response: AnyResponse) -> Union[str, Mapping[str, Any]]:
    """The answer the model wrote: the report's text, or a PydanticResponse's model as a JSON value."""
    if isinstance(response, AsyncStreamingResponse):
        raise CitecheckError("invalid_input", "an AsyncStreamingResponse is still streaming: check `await response.get_response()`")
    if isinstance(response, StreamingResponse):
        response = response.get_response()
    if isinstance(response, PydanticResponse):
        model = response.response
        return {} if model is None else plain(model)
    if isinstance(response, Response):
        return response.response or ""
    raise CitecheckError("invalid_input", "check a LlamaIndex Response, StreamingResponse or PydanticResponse: this is none of them")


def check_response(response: AnyResponse, *, explain: bool = False) -> List[Dict[str, Any]]:
    """The outcome of each quotation of a LlamaIndex answer, as `citecheck quotes` gives it.

    The answer is read as a report (a PydanticResponse's model as a
    structured answer) and checked against sources(response): one dict per
    quotation, in order, each the JSON line of docs/quotes.md#outcomes
    (with explain=True its findings and fix). A marker [N] that names no
    node is no_source; an answer without quotations gives []. A
    StreamingResponse is read to its end first. Nothing is rewritten or
    dropped. Costs what `citecheck quotes` does: linear in the answer, and
    for each quotation a search of its source (spec §5.13). Raises
    CitecheckError (invalid_input) for a response without source nodes or
    an answer the command refuses.
    """
    text = _text(response)
    srcs = sources(response)
    if not srcs:
        raise CitecheckError("invalid_input", "the response has no source nodes: there is nothing to check its quotations against")
    return [json.loads(line) for line in quotes(text, sources=srcs, explain=explain).splitlines()]
