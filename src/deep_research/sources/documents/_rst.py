"""reStructuredText, parsed by docutils: sections become headings, paragraphs blocks.

docutils can read other files on a document's behalf (``.. include::``, ``.. raw:: :file:``,
``.. csv-table:: :file:``) and can embed raw HTML. Both are switched off
(``file_insertion_enabled``, ``raw_enabled``), and so are configuration files and the
environment, so a document can never make the corpus read a file outside its folder (nor
one inside it). Parsing problems are kept out of the output: a malformed document still
gives the text docutils could read.
"""

from __future__ import annotations

import io
from typing import Any

from deep_research.sources.documents._text import DocumentLimits, DocumentText, TextBuilder
from deep_research.text.words import TABLE_CELLS

_SETTINGS = {
    "file_insertion_enabled": False,
    "raw_enabled": False,
    "_disable_config": True,
    "report_level": 5,  # no system messages in the tree
    "halt_level": 5,  # never stop on an error
    "syntax_highlight": "none",
    "input_encoding": "unicode",
    "line_length_limit": 100_000,
}


def read_rst(text: str, limits: DocumentLimits) -> DocumentText:
    """Read a reStructuredText document into headed blocks.

    Raises:
        UnreadableDocumentError: ``no_text`` or ``too_large``.
    """
    from docutils import nodes
    from docutils.core import publish_doctree

    settings = {**_SETTINGS, "warning_stream": io.StringIO()}
    tree = publish_doctree(text, settings_overrides=settings)
    builder = TextBuilder(limits)
    skipped = (
        nodes.system_message,
        nodes.comment,
        nodes.substitution_definition,
        nodes.target,
        nodes.raw,
        nodes.docinfo,
    )

    def walk(node: Any, depth: int) -> None:
        for child in node.children:
            if isinstance(child, skipped):
                continue
            if isinstance(child, nodes.section):
                walk(child, depth + 1)
            elif isinstance(child, nodes.title | nodes.subtitle):
                builder.heading(child.astext(), max(depth, 1))
            elif isinstance(child, nodes.table):
                for row in child.findall(nodes.row):
                    builder.block(
                        TABLE_CELLS.join(" ".join(e.astext().split()) for e in row.children)
                    )
            elif isinstance(child, nodes.TextElement | nodes.literal_block):
                builder.block(child.astext())
            else:  # lists, block quotes, admonitions, definition lists: their paragraphs
                walk(child, depth)

    walk(tree, 1)
    title = tree.get("title") or None
    return builder.build(str(title) if title else None)
