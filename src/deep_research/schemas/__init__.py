"""JSON Schemas of what the package exports, generated from its pydantic models.

``report.v1.json`` describes the JSON export of a report,
``Report.model_dump(mode="json", by_alias=True)`` (camelCase keys). It ships inside the package
so that consumers can validate reports without importing Python. After changing the models,
regenerate it with ``python -m deep_research.schemas``; a unit test fails while it is stale.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic.json_schema import GenerateJsonSchema
from pydantic_core import core_schema

from deep_research.state.models import Report

REPORT_SCHEMA_FILE = "report.v1.json"
"""File name of the report schema inside this package."""

JSON_SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"


class _ExportSchema(GenerateJsonSchema):
    """Marks every field required: an export writes each one, defaults included."""

    def field_is_required(
        self,
        field: core_schema.ModelField | core_schema.DataclassField | core_schema.TypedDictField,
        total: bool,
    ) -> bool:
        return field.get("serialization_exclude_if") is None


ADDED_REPORT_FIELDS = ("summary", "limitations", "confidence")
"""Report fields added to v1 after its first release. Exports write them, but the schema does
not require them, so that reports exported before they existed still validate."""


def report_schema() -> dict[str, Any]:
    """The JSON Schema of a report's JSON export, generated from :class:`Report` now."""
    schema = Report.model_json_schema(
        by_alias=True, mode="serialization", schema_generator=_ExportSchema
    )
    schema["required"] = [key for key in schema["required"] if key not in ADDED_REPORT_FIELDS]
    return {"$schema": JSON_SCHEMA_DIALECT, "$id": REPORT_SCHEMA_FILE, **schema}


def shipped_report_schema() -> dict[str, Any]:
    """The report schema shipped with the package."""
    text = resources.files(__name__).joinpath(REPORT_SCHEMA_FILE).read_text(encoding="utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def render(schema: dict[str, Any]) -> str:
    """The schema as the shipped file spells it (sorted keys, two-space indent)."""
    return json.dumps(schema, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def write_report_schema(path: Path | None = None) -> Path:
    """Regenerate the shipped report schema (or write it to ``path``); returns the file."""
    target = path or Path(__file__).with_name(REPORT_SCHEMA_FILE)
    target.write_text(render(report_schema()), encoding="utf-8")
    return target


__all__ = [
    "ADDED_REPORT_FIELDS",
    "REPORT_SCHEMA_FILE",
    "render",
    "report_schema",
    "shipped_report_schema",
    "write_report_schema",
]
