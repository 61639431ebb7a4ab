"""DRB's own prompts, read at run time from the data folder, never copied into the project.

DRB keeps its prompts as Python string constants: the cleaning and scoring prompts in
``prompt/``, the FACT extraction, deduplication and validation prompts in ``method/``. They are
read with :mod:`ast` (the files are parsed, never executed) and filled with ``str.format`` as
DRB fills them. :func:`parse` reads a filled prompt back into its fields, which is how the
stand-in judge of :mod:`bench.drb.standin` knows what it was asked.
"""

from __future__ import annotations

import ast
import re
import string
from dataclasses import dataclass
from pathlib import Path

from bench.drb.data import DATA_DIR, DrbDataError

LANGUAGES = ("zh", "en")

SOURCES: dict[str, dict[str, tuple[str, str]]] = {
    "clean": {
        "zh": ("prompt/clean_prompt.py", "clean_article_prompt_zh"),
        "en": ("prompt/clean_prompt.py", "clean_article_prompt_en"),
    },
    "score": {
        "zh": ("prompt/score_prompt_zh.py", "generate_merged_score_prompt"),
        "en": ("prompt/score_prompt_en.py", "generate_merged_score_prompt"),
    },
    "extract": {
        "zh": ("method/extract.py", "prompt_template"),
        "en": ("method/extract.py", "prompt_template_en"),
    },
    "dedupe": {
        "zh": ("method/deduplicate.py", "prompt_template"),
        "en": ("method/deduplicate.py", "prompt_template_en"),
    },
    "validate": {
        "zh": ("method/validate.py", "prompt_template"),
        "en": ("method/validate.py", "prompt_template_en"),
    },
}
"""Each prompt's file (relative to the data folder) and constant, by task and language."""

FIELDS = {
    "clean": {"article"},
    "score": {"task_prompt", "article_1", "article_2", "criteria_list"},
    "extract": {"report_text"},
    "dedupe": {"statements"},
    "validate": {"reference", "statements"},
}
"""The fields each prompt must have: a template without them is not the one expected."""


@dataclass(frozen=True)
class DrbPrompts:
    """Every DRB prompt the harness uses, by task (``clean``, ``score``...) and language."""

    templates: dict[str, dict[str, str]]

    def get(self, kind: str, language: str) -> str:
        """The template of ``kind`` for ``language`` (Chinese for ``zh``, else English)."""
        return self.templates[kind]["zh" if language == "zh" else "en"]

    def fill(self, kind: str, language: str, **values: str) -> str:
        """The prompt of ``kind`` filled as DRB fills it (``str.format``)."""
        return self.get(kind, language).format(**values)


def string_constants(path: Path) -> dict[str, str]:
    """The module-level ``NAME = "..."`` string constants of a Python file (not executed)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
            value = node.value.value
            for target in node.targets:
                if isinstance(target, ast.Name) and isinstance(value, str):
                    found[target.id] = value
    return found


def template_fields(template: str) -> set[str]:
    """The ``{name}`` fields of a ``str.format`` template."""
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def load_prompts(folder: Path = DATA_DIR) -> DrbPrompts:
    """Read every prompt of :data:`SOURCES` from ``folder``.

    Raises:
        DrbDataError: a file or constant is missing, or a template lacks its fields.
    """
    files: dict[Path, dict[str, str]] = {}
    templates: dict[str, dict[str, str]] = {}
    for kind, by_language in SOURCES.items():
        templates[kind] = {}
        for language, (relative, constant) in by_language.items():
            path = folder / relative
            if not path.is_file():
                raise DrbDataError(
                    f"DRB prompt file {path} not found: point --data at DRB's material "
                    "(the folder holding prompt/ and method/)"
                )
            constants = files.setdefault(path, string_constants(path))
            template = constants.get(constant)
            if template is None or not FIELDS[kind] <= template_fields(template):
                raise DrbDataError(
                    f"{path} has no {constant} with the fields {sorted(FIELDS[kind])}"
                )
            templates[kind][language] = template
    return DrbPrompts(templates)


def parse(template: str, text: str) -> dict[str, str] | None:
    """The field values that turn ``template`` into ``text``, or ``None`` if it does not."""
    pattern: list[str] = []
    seen: set[str] = set()
    for literal, name, _, _ in string.Formatter().parse(template):
        pattern.append(re.escape(literal))
        if name:
            pattern.append(".*?" if name in seen else f"(?P<{name}>.*?)")
            seen.add(name)
    match = re.fullmatch("".join(pattern), text, re.S)
    return match.groupdict() if match else None
